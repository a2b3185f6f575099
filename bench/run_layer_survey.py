#!/usr/bin/env python3
"""Layer survey: single torch.nn layers and functional calls outside the torchvision zoo
(bench/layer_survey_defs.py: activations with parameters, group and instance norm, transposed
convolutions, upsampling, softmax over channels, reductions, elementwise math, a user's conv
block with F.relu, a UNet decoder step), timed in symbolite and in PyTorch 1.13's C++ lite
interpreter (bench/torch_peer) on the same .ptl and input, at one thread.

  /usr/bin/python3 bench/run_layer_survey.py --symbolite build/bin/symbolite \\
      --peer build/bin/torch_peer [--cache DIR] [--rounds 3] [--runs 30] [--only a,b] \\
      [--markdown PATH]

Each case is measured in --rounds alternating rounds (symbolite, then PyTorch, each in its own
process, `--runs` timed runs after 3 warm-up runs); a figure is the lowest round's median, the
speed-up PyTorch's over symbolite's. Outputs are compared once: a case whose outputs differ by
more than 1e-4 x PyTorch's largest magnitude is marked.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOLERANCE = 1e-4


def build(cache, name):
    """Writes cache/NAME.ptl and NAME.npy (a seeded float32 input) unless they are there."""
    ptl, npy = os.path.join(cache, name + ".ptl"), os.path.join(cache, name + ".npy")
    if os.path.exists(ptl) and os.path.exists(npy):
        return ptl, npy
    import numpy
    import torch

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import layer_survey_defs

    torch.manual_seed(0)
    factory, shape = layer_survey_defs.CASES[name]
    torch.jit.script(factory().eval())._c._save_for_mobile(ptl, {}, True)
    numpy.save(npy, torch.randn(*shape).numpy())
    return ptl, npy


def median_ms(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()[:300]}")
    return json.loads(done.stdout)["median_ms"]


def outputs_agree(args, ptl, npy):
    """The largest |symbolite - PyTorch| / max |PyTorch| over the first output."""
    import numpy

    with tempfile.TemporaryDirectory() as work:
        subprocess.run([args.symbolite, "run", ptl, "--input", npy, "--output-dir", work,
                        "--threads", "1"], check=True, capture_output=True, timeout=600)
        peer = os.path.join(work, "peer.npy")
        subprocess.run([args.peer, ptl, npy, "--runs", "1", "--warmup", "0", "--threads", "1",
                        "--output", peer], check=True, capture_output=True, timeout=600)
        mine, ref = numpy.load(os.path.join(work, "output_0.npy")), numpy.load(peer)
        if mine.shape != ref.shape:
            return float("inf")
        scale = float(numpy.abs(ref).max()) or 1.0
        return float(numpy.abs(mine.astype(numpy.float64) - ref).max()) / scale


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--symbolite", default=os.path.join(ROOT, "build", "bin", "symbolite"))
    parser.add_argument("--peer", default=os.path.join(ROOT, "build", "bin", "torch_peer"))
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "symbolite-layers"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--only", default="")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import layer_survey_defs

    os.makedirs(args.cache, exist_ok=True)
    names = [n for n in layer_survey_defs.CASES if not args.only or n in args.only.split(",")]
    rows = ["| layer | input | symbolite (ms) | PyTorch (ms) | speed-up | outputs (max rel. diff) |",
            "|---|---|---:|---:|---:|---|"]
    for name in names:
        ptl, npy = build(args.cache, name)
        common = ["--runs", str(args.runs), "--warmup", "3", "--threads", "1"]
        mine, theirs = [], []
        for _ in range(args.rounds):
            mine.append(median_ms([args.symbolite, "bench", ptl, "--input", npy, "--json"] + common))
            theirs.append(median_ms([args.peer, ptl, npy] + common))
        diff = outputs_agree(args, ptl, npy)
        verdict = f"agree ({diff:.1e})" if diff <= TOLERANCE else f"DIFFER ({diff:.1e})"
        shape = "x".join(str(d) for d in layer_survey_defs.CASES[name][1])
        row = (f"| {name} | {shape} | {min(mine):.3f} | {min(theirs):.3f} | "
               f"{min(theirs) / min(mine):.2f}x | {verdict} |")
        rows.append(row)
        print(row, flush=True)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
