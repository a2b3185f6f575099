#!/usr/bin/python3
"""`symbolite check` on torchvision 0.14's models as PyTorch 1.13 saves them with debug info
(by hand; results in docs/CLI.md, "What check finds in PyTorch's own files").

Usage: /usr/bin/python3 tests/interop/check_zoo.py --symbolite build/bin/symbolite [--models a,b]

Prints one Markdown row per model: methods, handles checked, errors, warnings and the finding
codes with their counts.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_zoo_models  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbolite", required=True)
    parser.add_argument("--models", help="comma-separated (default: every zoo model)")
    args = parser.parse_args()
    names = args.models.split(",") if args.models else (
        run_zoo_models.CLASSIFICATION + run_zoo_models.SEGMENTATION + run_zoo_models.VIDEO)
    print("| model | methods | handles | errors | warnings | findings |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="symbolite-check-zoo-") as work:
        for name in names:
            path = os.path.join(work, f"{name}.ptl")
            run_zoo_models.build(name, path)
            p = subprocess.run([args.symbolite, "check", "--json", path], capture_output=True, text=True)
            if p.returncode not in (0, 1):
                print(f"| {name} | exit {p.returncode}: {p.stderr.strip()[:100]} | | | | |", flush=True)
                continue
            r = json.loads(p.stdout)
            codes = collections.Counter(f["code"] for f in r["findings"])
            found = ", ".join(f"{c} ({n})" for c, n in sorted(codes.items())) or "none"
            print(f"| {name} | {r['methods']} | {r['handles']} | {r['errors']} | {r['warnings']} | {found} |",
                  flush=True)
            os.remove(path)


if __name__ == "__main__":
    main()
