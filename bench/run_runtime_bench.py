#!/usr/bin/env python3
"""Runtime benchmark: symbolite vs PyTorch 1.13's lite interpreter on the same .ptl files,
single-threaded, in one run: load time, median latency (warm-up, then RUNS timed runs) and
peak memory (max RSS of a process that loads the model and runs it).

  /usr/bin/python3 bench/run_runtime_bench.py --build build [--models DIR] [--runs 20]

Prints the markdown table recorded in docs/PERFORMANCE.md.
"""
import os
import re
import subprocess
import sys

from zoo import symbolite_bench, zoo_image, zoo_models, zoo_parser  # noqa: E402  (bench/zoo.py)

MODELS = ["mobilenet_v3_small", "shufflenet_v2_x0_5", "squeezenet1_1", "mnasnet0_5", "resnet18",
          "efficientnet_b0"]

PYTORCH_SIDE = r"""
import sys, time, statistics, numpy, torch
from torch.jit.mobile import _load_for_lite_interpreter
torch.set_num_threads(1)
path, image, runs, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
x = torch.from_numpy(numpy.load(image))
start = time.perf_counter()
m = _load_for_lite_interpreter(path)
load_ms = (time.perf_counter() - start) * 1e3
for _ in range(warmup):
    m(x)
times = []
for _ in range(runs):
    start = time.perf_counter()
    m(x)
    times.append((time.perf_counter() - start) * 1e3)
# VmHWM: this process's own peak (ru_maxrss would include the parent's, which imported torch)
rss_kb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(f"load {load_ms:.2f} median {statistics.median(times):.3f} rss_kb {rss_kb}")
"""


def main():
    parser = zoo_parser(__doc__.split("\n\n")[0], runs=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--size", type=int, default=224, help="input image side")
    args = parser.parse_args()
    work, models = zoo_models(args.models)
    image = zoo_image(work, args.size)
    symbolite = os.path.join(args.build, "bin", "symbolite")

    rows = []
    for name in MODELS:
        path = os.path.join(models, name + ".ptl")
        # PyTorch cannot load efficientnet_b0 with its own debug info (tag -1 rows); it
        # runs the copy without them, which has identical code and weights.
        repaired = os.path.join(models, name + "_repaired.ptl")
        torch_path = repaired if os.path.exists(repaired) else path
        sym_median, sym_load, sym_rss = symbolite_bench(symbolite, path, image, args.runs, args.warmup)
        sym_rss *= 1024
        out = subprocess.run([sys.executable, "-c", PYTORCH_SIDE, torch_path, image,
                              str(args.runs), str(args.warmup)], check=True, capture_output=True,
                             text=True).stdout
        m = re.search(r"load ([\d.]+) median ([\d.]+) rss_kb (\d+)", out)
        torch_load, torch_median, torch_rss = float(m.group(1)), float(m.group(2)), float(m.group(3))
        rows.append(f"| {name} | {sym_median:.1f} | {torch_median:.1f} | {torch_median / sym_median:.2f}x "
                    f"| {sym_load:.1f} | {torch_load:.1f} | {sym_rss / 1024:.0f} | {torch_rss / 1024:.0f} |")

    print(f"Input 1x3x{args.size}x{args.size}, {args.runs} timed runs after {args.warmup} warm-up, one thread.")
    print()
    print("| model | symbolite median (ms) | PyTorch median (ms) | speed-up | symbolite load (ms) "
          "| PyTorch load (ms) | symbolite peak RSS (MiB) | PyTorch peak RSS (MiB) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
