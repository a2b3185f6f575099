#!/usr/bin/env python3
"""What PyTorch 1.13's lite interpreter does with each hostile file, for the comparison table
in docs/RELIABILITY.md. Each file is loaded (and, for the verifier's cases, run on
tag_minus_one's inputs) in a child process of its own, so that a crash or a hang is recorded
rather than taking the script down. Run by hand with Debian's PyTorch:

  /usr/bin/python3 tests/hostile/compare_pytorch.py [--timeout 20] > /tmp/pytorch_hostile.md
"""
import argparse
import json
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, os.pardir, "fixtures", "run", "tag_minus_one", "valid_0")

CHILD = r"""
import sys, numpy, torch
from torch.jit.mobile import _load_for_lite_interpreter
m = _load_for_lite_interpreter(sys.argv[1])
if sys.argv[2] == "run":
    args = [torch.from_numpy(numpy.load(p)) for p in sys.argv[3:]]
    m(*args)
print("ok")
"""


def outcome(path, run, timeout):
    args = [sys.executable, "-c", CHILD, path, "run" if run else "load"]
    if run:
        args += [os.path.join(INPUTS, "input_0.npy"), os.path.join(INPUTS, "input_1.npy")]
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"hangs (killed after {timeout} s)"
    if p.returncode < 0:
        return f"crashes ({signal.Signals(-p.returncode).name})"
    if p.returncode == 0:
        return "accepted"
    lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
    last = lines[-1] if lines else ""
    for l in lines:
        if l.startswith("RuntimeError") or "Error" in l.split(":")[0]:
            last = l
            break
    return "refused: " + last[:110].replace("|", "\\|")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=int, default=20)
    args = parser.parse_args()
    with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as f:
        expected = json.load(f)
    print("| file | symbolite | PyTorch 1.13 |")
    print("|---|---|---|")
    for name in sorted(expected):
        e = expected[name]
        if not name.endswith(".ptl"):
            continue
        run = e.get("open") == "runtime"
        print(f"| `{name}` | {e['kind']} error | {outcome(os.path.join(HERE, name), run, args.timeout)} |",
              flush=True)


if __name__ == "__main__":
    main()
