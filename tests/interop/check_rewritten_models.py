#!/usr/bin/python3
"""PyTorch 1.13 loads and runs models symbolite rewrote (mobile/model_writer.h): every
committed fixture model, a frozen model (its weights are tensor constants of bytecode.pkl),
and torchvision's efficientnet_b0 (built with
tests/fixtures/generate.py; PyTorch cannot load its own file because of source-range tag -1
rows), re-written with symbolite's bytecode.pkl and debug records.

    /usr/bin/python3 tests/interop/check_rewritten_models.py --tests build/bin/symbolite_tests \
        [--no-torchvision]

The rewritten copies come from the hidden gtest ModelWriterExport.WriteRewrittenModels. With them
comes nested_unknown_ranges.ptl, nested.ptl with every source range unknown (symbolite's
convention, docs/FORMATS.md): PyTorch must load it and print the original's hierarchy. For
each copy: `_load_for_lite_interpreter` must load it; every failing case of its golden must
raise PyTorch's own error text for the original (module hierarchy and traceback included; for
models PyTorch cannot load, the text of the golden's loadable copy); every valid call of
tests/fixtures/run/manifest.json must give the recorded outputs (efficientnet_b0: the outputs of
its repaired copy). For a model whose golden records that PyTorch refuses it, the original must
still be refused: the rewritten copy is what makes it load.

Prints one line per check; exits 1 if any failed, 77 (ctest's skip code) without torch.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.normpath(os.path.join(HERE, os.pardir, "fixtures"))
SKIP = 77


def build_frozen(directory, torch):
    """A frozen model (torch.jit.freeze): its weights are tensor constants of bytecode.pkl,
    persistent ids into the archive's constants/ records. Returns (path, valid call,
    failing call)."""

    class Frozen(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)
            self.lin = torch.nn.Linear(4, 2)

        def forward(self, x):
            y = torch.relu(self.conv(x)).mean([2, 3])
            return self.lin(y) + torch.tensor([1.0, 2.0])

    torch.manual_seed(0)
    frozen = torch.jit.freeze(torch.jit.script(Frozen().eval()))
    os.makedirs(directory)
    path = os.path.join(directory, "frozen.ptl")
    frozen._c._save_for_mobile(path, {}, True)
    return path, "(torch.randn(1, 3, 8, 8),)", "(torch.randn(1, 2, 8, 8),)"


def same_as_original(original, rewritten, valid, failing, torch):
    """Problems: the rewritten model must compute what the original does and fail with the
    same text."""
    problems = []
    torch.manual_seed(0)
    args = eval(valid, {"torch": torch})  # our own constant expressions
    if not torch.equal(original.forward(*args), rewritten.forward(*args)):
        problems.append("forward differs from the original's")
    texts = []
    for module in (original, rewritten):
        try:
            module.forward(*eval(failing, {"torch": torch}))
            texts.append(None)
        except Exception as error:  # noqa: BLE001
            texts.append(str(error))
    if texts[0] is None or texts[0] != texts[1]:
        problems.append(f"error texts differ:\n{texts[0]}\n---\n{texts[1]}")
    return problems


def rewrite(tests, source_dir, out_dir):
    """Runs the hidden gtest that rewrites every .ptl of source_dir (None: the committed
    fixtures, plus nested_unknown_ranges.ptl) into out_dir."""
    os.makedirs(out_dir, exist_ok=True)
    env = dict(os.environ, SYMBOLITE_REWRITE_OUT=out_dir)
    env.pop("SYMBOLITE_REWRITE_IN", None)
    if source_dir is not None:
        env["SYMBOLITE_REWRITE_IN"] = source_dir
    subprocess.run([tests, "--gtest_filter=ModelWriterExport.*"], check=True, env=env,
                   stdout=subprocess.DEVNULL)


def flatten(value, torch):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in flatten(item, torch)]
    return []


def check_cases(module, golden, torch):
    """Problems, number of cases checked."""
    problems = []
    for case in golden.get("cases", []):
        torch.manual_seed(0)
        args = eval(case["inputs"], {"torch": torch})  # the golden's own constant expressions
        try:
            module.run_method(case["method"], *args)
        except Exception as error:  # noqa: BLE001 (any class: compared below)
            if type(error).__name__ != case["error_type"] or str(error) != case["error"]:
                problems.append(f"case {case['name']}: PyTorch said\n{error}\nexpected\n"
                                f"{case['error']}")
            continue
        problems.append(f"case {case['name']}: did not fail")
    return problems, len(golden.get("cases", []))


def check_unknown_ranges(module, golden, torch):
    """nested_unknown_ranges.ptl: nested.ptl written with every range unknown (rows: tag -1
    with symbolite's marker row; frames: tag -1). PyTorch must load it and print the
    original's message and module hierarchy, with no source in the traceback."""
    problems = []
    for case in golden["cases"]:
        torch.manual_seed(0)
        try:
            module.run_method(case["method"], *eval(case["inputs"], {"torch": torch}))
            problems.append(f"case {case['name']}: did not fail")
        except Exception as error:  # noqa: BLE001
            text = str(error)
            if (not text.startswith(case["message"])
                    or "Module hierarchy:" + case["module_hierarchy"] + "\n" not in text
                    or "File " in text):
                problems.append(f"case {case['name']}: PyTorch said\n{text}")
    return problems, len(golden["cases"])


def check_runs(module, model_name, torch, numpy):
    """Problems, number of calls checked."""
    problems = []
    calls = 0
    with open(os.path.join(FIXTURES, "run", "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    for entry in manifest:
        if entry["model"] != model_name or "case" in entry or not entry.get("outputs"):
            continue
        directory = os.path.join(FIXTURES, "run", entry["dir"])
        torch.manual_seed(0)  # as make_run_fixtures.py drew the inputs
        inputs = eval(entry["call"], {"torch": torch})  # the manifest's constant expressions
        got = flatten(module.run_method(entry["method"], *inputs), torch)
        calls += 1
        want = [torch.from_numpy(numpy.load(os.path.join(directory, name)))
                for name in entry["outputs"]]
        # The recorded outputs come from PyTorch on another CPU: its float32 kernels (AVX2 or
        # AVX-512 paths) differ by a few ulps, e.g. 6e-8 on lstm's values near zero, which the
        # default atol of 1e-8 calls a difference. The tolerance of run_interop.py.
        if len(got) != len(want) or not all(
                a.dtype == b.dtype and a.shape == b.shape
                and torch.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
                for a, b in zip(got, want)):
            problems.append(f"{entry['dir']}: outputs differ from the recorded ones")
    return problems, calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", required=True, help="the symbolite_tests binary")
    parser.add_argument("--no-torchvision", action="store_true",
                        help="skip building and checking efficientnet_b0")
    args = parser.parse_args()
    try:
        import numpy
        import torch
        from torch.jit.mobile import _load_for_lite_interpreter
    except ImportError:
        print("skipped: no torch")
        return SKIP
    # The delegated fixtures need the "symbolite" to_backend backend, built beside the tests
    # (build/lib/libsymbolite_torch.so) when libtorch-dev is installed.
    plugin = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.tests))), "lib",
                          "libsymbolite_torch.so")
    have_plugin = os.path.exists(plugin)
    if have_plugin:
        torch.ops.load_library(plugin)

    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        # (originals dir, rewritten dir, goldens dir).
        sets = []
        out = os.path.join(tmp, "rewritten")
        rewrite(args.tests, None, out)
        sets.append((os.path.join(FIXTURES, "models"), out, os.path.join(FIXTURES, "goldens")))
        if not args.no_torchvision:
            built = os.path.join(tmp, "torchvision")
            goldens = os.path.join(tmp, "goldens")
            env = dict(os.environ, PYTHONHASHSEED="0")
            subprocess.run([sys.executable, os.path.join(FIXTURES, "generate.py"), built,
                            "--goldens", goldens, "--only", "efficientnet_b0"],
                           check=True, env=env, stdout=subprocess.DEVNULL)
            # The repaired copy (tag -1 rows removed) is the reference, not an input.
            reference = os.path.join(tmp, "reference")
            os.makedirs(reference)
            for name in os.listdir(built):
                if name != "efficientnet_b0.ptl":
                    os.replace(os.path.join(built, name), os.path.join(reference, name))
            out = os.path.join(tmp, "rewritten_torchvision")
            rewrite(args.tests, built, out)
            sets.append((built, out, goldens))

        frozen, valid, failing = build_frozen(os.path.join(tmp, "frozen"), torch)
        rewrite(args.tests, os.path.dirname(frozen), os.path.join(tmp, "rewritten_frozen"))
        rewritten = _load_for_lite_interpreter(os.path.join(tmp, "rewritten_frozen", "frozen.ptl"))
        problems = same_as_original(_load_for_lite_interpreter(frozen), rewritten, valid, failing,
                                    torch)
        if problems:
            failed += 1
            print("FAIL frozen.ptl (tensor constants)\n     " + "\n     ".join(problems))
        else:
            print("ok   frozen.ptl: tensor constants; same outputs and error text as the original")

        for originals, out, goldens in sets:
            for name in sorted(os.listdir(out)):
                stem = name[: -len(".ptl")]
                problems = []
                cases = calls = 0
                try:
                    module = _load_for_lite_interpreter(os.path.join(out, name))
                except Exception as error:  # noqa: BLE001
                    problems.append(f"does not load: {error}")
                    module = None
                golden_path = os.path.join(goldens, stem + ".json")
                golden = {}
                if os.path.exists(golden_path):
                    with open(golden_path, encoding="utf-8") as f:
                        golden = json.load(f)
                if golden.get("backend") and not have_plugin:
                    print(f"skip {name}: needs {plugin} (libtorch-dev)")
                    continue
                note = ""
                if golden.get("load_error"):  # PyTorch refuses its own file: still so?
                    try:
                        _load_for_lite_interpreter(os.path.join(originals, name))
                        problems.append("the original loads, but its golden says it does not")
                    except Exception:  # noqa: BLE001
                        note = " (PyTorch refuses the original)"
                if module is not None and stem == "nested_unknown_ranges":
                    with open(os.path.join(goldens, "nested.json"), encoding="utf-8") as f:
                        found, cases = check_unknown_ranges(module, json.load(f), torch)
                    problems += found
                elif module is not None:
                    found, cases = check_cases(module, golden, torch)
                    problems += found
                if module is not None:
                    found, calls = check_runs(module, name, torch, numpy)
                    problems += found
                if module is not None and stem == "efficientnet_b0":
                    repaired = _load_for_lite_interpreter(
                        os.path.join(tmp, "reference", "efficientnet_b0_repaired.ptl"))
                    torch.manual_seed(0)
                    image = torch.randn(1, 3, 224, 224)
                    calls += 1
                    if not torch.equal(module.forward(image), repaired.forward(image)):
                        problems.append("forward differs from the repaired copy's")
                if problems:
                    failed += 1
                    print(f"FAIL {name}")
                    for problem in problems:
                        print("     " + problem.replace("\n", "\n     "))
                else:
                    print(f"ok   {name}: loads{note}, {cases} failing cases, {calls} valid calls")
                sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
