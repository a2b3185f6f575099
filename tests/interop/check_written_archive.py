#!/usr/bin/python3
"""Checks that Python's zipfile and PyTorch 1.13 accept an archive symbolite wrote.

    /usr/bin/python3 tests/interop/check_written_archive.py WRITTEN ORIGINAL GOLDEN_JSON [--zip-only]

WRITTEN is a copy of the PyTorch model archive ORIGINAL (same records) made by symbolite's
ModelArchiveWriter; GOLDEN_JSON is the golden of ORIGINAL (tests/fixtures/goldens/*.json).
Checks, printing one line each:

  - zipfile: testzip() finds no bad CRC, the record names and contents are ORIGINAL's;
  - torch.jit.load (the full TorchScript loader: code/, data.pkl, constants.pkl) and
    _load_for_lite_interpreter (bytecode.pkl and the debug records) both load WRITTEN, and
    its methods give ORIGINAL's results on valid inputs;
  - every failing case of the golden raises the same exception type with the same text
    (module hierarchy and traceback come from the debug records).

With --zip-only, only the zipfile checks run. Prints OK and exits 0 when all pass; exits 1 at the first failure, 77 without torch. Run by
symbolite/archive/model_archive_writer_test.cpp.
"""

import json
import sys
import zipfile

SKIP = 77

# Calls that succeed on nested.ptl's Nested model: (method, inputs expression).
VALID_CALLS = [
    ("forward", "(torch.ones(2, 4), torch.ones(2, 4))"),
    ("forward", "(torch.ones(3, 2, 4), torch.full((2, 4), 0.5))"),
    ("project", "(torch.arange(8.0).reshape(2, 4),)"),
    ("accumulate", "(torch.arange(12.0).reshape(3, 4), 3)"),
    ("distance", "(torch.ones(2, 4), torch.zeros(2, 4))"),
    ("weigh", "(torch.ones(2, 4), torch.ones(4))"),
]


def fail(message):
    print(f"FAIL {message}")
    sys.exit(1)


def check_zip(written, original):
    with zipfile.ZipFile(written) as zw, zipfile.ZipFile(original) as zo:
        bad = zw.testzip()
        if bad is not None:
            fail(f"zipfile: bad CRC in {bad}")
        if zw.namelist() != zo.namelist():
            fail(f"zipfile: entries differ:\n  {zw.namelist()}\n  {zo.namelist()}")
        for name in zo.namelist():
            if zw.read(name) != zo.read(name):
                fail(f"zipfile: content of {name} differs")
    print("ok   zipfile reads every entry, CRCs and contents match")


def same(a, b, torch):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    return a == b


def main():
    args = sys.argv[1:]
    zip_only = "--zip-only" in args
    if zip_only:
        args.remove("--zip-only")
    if len(args) != 3:
        print(__doc__)
        return 2
    written, original, golden_path = args
    check_zip(written, original)
    if zip_only:
        print("OK")
        return 0

    try:
        import torch
        import torch.jit.mobile
    except ImportError:
        print("SKIP no torch")
        return SKIP

    with open(golden_path) as f:
        golden = json.load(f)

    scripted = torch.jit.load(written)
    reference = torch.jit.load(original)
    lite = torch.jit.mobile._load_for_lite_interpreter(written)
    lite_reference = torch.jit.mobile._load_for_lite_interpreter(original)
    print("ok   torch.jit.load and _load_for_lite_interpreter load it")

    for method, inputs in VALID_CALLS:
        args = eval(inputs, {"torch": torch})  # our own constant expressions above
        want = getattr(reference, method)(*args)
        for name, got in (
            ("torch.jit.load", getattr(scripted, method)(*args)),
            ("lite", lite.run_method(method, *args)),
            ("lite reference", lite_reference.run_method(method, *args)),
        ):
            if not same(got, want, torch):
                fail(f"{name}: {method}{inputs} gave {got}, expected {want}")
    print(f"ok   {len(VALID_CALLS)} valid calls give the original's results")

    for case in golden["cases"]:
        args = eval(case["inputs"], {"torch": torch})  # the golden's constant expressions
        try:
            lite.run_method(case["method"], *args)
        except Exception as error:  # PyTorch keeps the op's error class
            got = (type(error).__name__, str(error))
        else:
            fail(f"case {case['name']}: {case['method']}{case['inputs']} did not fail")
        if got != (case["error_type"], case["error"]):
            fail(
                f"case {case['name']}: got {got[0]}:\n{got[1]}\n"
                f"expected {case['error_type']}:\n{case['error']}"
            )
    print(f"ok   {len(golden['cases'])} failing cases raise the golden's errors")
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
