#!/usr/bin/python3
"""Checks that PyTorch 1.13 reads pickles symbolite wrote: loads REWRITTEN (a copy of a
fixture model whose pickled records symbolite's pickler re-wrote) with the lite interpreter
and requires every failing case of GOLDEN_JSON to raise exactly the error text PyTorch gave
for the original — the module hierarchy and traceback come from the re-written debug records.

    /usr/bin/python3 tests/interop/check_repickled_model.py REWRITTEN GOLDEN_JSON

Prints OK and exits 0 when all match; exits 1 at the first difference, 77 without torch.
"""
import json
import sys


def main():
    try:
        import torch
        from torch.jit.mobile import _load_for_lite_interpreter
    except ImportError:
        print("skipped: no torch")
        return 77
    rewritten, golden_path = sys.argv[1], sys.argv[2]
    with open(golden_path, encoding="utf-8") as f:
        golden = json.load(f)
    module = _load_for_lite_interpreter(rewritten)
    for case in golden["cases"]:
        args = eval(case["inputs"], {"torch": torch})  # the golden's own constant expressions
        try:
            module.run_method(case["method"], *args)
        except Exception as error:  # noqa: BLE001 (any class: compared below)
            if type(error).__name__ != case["error_type"] or str(error) != case["error"]:
                print(f"case {case['name']}: PyTorch said\n{error}\nexpected\n{case['error']}")
                return 1
            continue
        print(f"case {case['name']}: did not fail")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
