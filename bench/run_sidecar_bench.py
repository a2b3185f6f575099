#!/usr/bin/env python3
"""Sidecar benchmark: sizes, load time and symbolication throughput of `symbolite split`'s
sidecar on the zoo, with PyTorch 1.13 measured in the same run.

  /usr/bin/python3 bench/run_sidecar_bench.py --build build [--models DIR]

Generates the models with tests/fixtures/generate.py (nested.ptl, and torchvision's
efficientnet_b0 and mobilenet_v3_small), splits each with `symbolite split`, and prints the
markdown tables recorded in docs/PERFORMANCE.md:
- sizes: full model, stripped model, sidecar, and PyTorch's own debug records (the call-stack
  map and every *.debug_pkl), both as stored in the zip (deflated) and uncompressed;
- time: opening the sidecar and symbolicating every handle (symbolite_sidecar_bench), next to
  what PyTorch's _load_for_lite_interpreter spends loading the same model with and without
  its debug records (PyTorch has no offline symbolication to compare with).
"""
import argparse
import json
import os
import statistics
import subprocess
import time
import zipfile

from zoo import zoo_models  # noqa: E402  (bench/zoo.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = ["nested.ptl", "mobilenet_v3_small.ptl", "efficientnet_b0.ptl"]


def debug_record_sizes(path):
    """(stored, uncompressed) bytes of PyTorch's debug records in an archive."""
    stored = raw = 0
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            record = info.filename.split("/", 1)[1]
            if record == "callstack_debug_map.pkl" or record.endswith(".debug_pkl"):
                stored += info.compress_size
                raw += info.file_size
    return stored, raw


def pytorch_load_ms(path, repeats=5):
    import torch.jit.mobile

    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        torch.jit.mobile._load_for_lite_interpreter(path)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--models", help="reuse models generated here (else a temp dir)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    symbolite = os.path.join(args.build, "bin", "symbolite")
    bench = os.path.join(args.build, "bin", "symbolite_sidecar_bench")
    work, models = zoo_models(args.models)

    size_rows, time_rows = [], []
    for name in MODELS:
        full = os.path.join(models, name)
        stem = name[:-4]
        stripped = os.path.join(work, stem + ".stripped.ptl")
        sidecar = os.path.join(work, stem + ".symdbg")
        subprocess.run([symbolite, "split", full, "--out", stripped, "--debug", sidecar],
                       check=True, stdout=subprocess.DEVNULL)
        stored, raw = debug_record_sizes(full)
        side = os.path.getsize(sidecar)
        size_rows.append(
            f"| {stem} | {os.path.getsize(full):,} | {os.path.getsize(stripped):,} | {side:,} "
            f"| {stored:,} | {raw:,} | {side / stored:.2f} | {side / raw:.2f} |")
        result = json.loads(subprocess.run([bench, sidecar], check=True, capture_output=True,
                                           text=True).stdout)
        # PyTorch cannot load efficientnet_b0 with its debug info (tag -1): use the copy
        # generate.py repaired for reference texts.
        loadable = os.path.join(models, stem + "_repaired.ptl")
        loadable = loadable if os.path.exists(loadable) else full
        with_debug = pytorch_load_ms(loadable)
        without = pytorch_load_ms(stripped)
        time_rows.append(
            f"| {stem} | {result['handles']:,} | {result['open_ms']:.2f} "
            f"| {result['cold_handles_per_s'] / 1e6:.2f} M/s | {result['warm_handles_per_s'] / 1e6:.2f} M/s "
            f"| {result['resolve_handles_per_s'] / 1e6:.2f} M/s "
            f"| {result['resolve_random_handles_per_s'] / 1e6:.2f} M/s "
            f"| {with_debug:.1f} | {without:.1f} | {with_debug - without:.1f} |")

    print("| model | full .ptl | stripped .ptl | sidecar | PyTorch debug records (stored) "
          "| (uncompressed) | sidecar / stored | sidecar / uncompressed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(size_rows))
    print()
    print("| model | handles | sidecar open (ms) | symbolicate, cold | symbolicate, warm "
          "| resolve (no text) | resolve, random order | PyTorch load with debug info (ms) "
          "| PyTorch load stripped (ms) | PyTorch's cost of debug info (ms) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(time_rows))


if __name__ == "__main__":
    main()
