"""The benchmark zoo: the fixture models plus torchvision's, generated once into a work
folder by tests/fixtures/generate.py (shared by the bench drivers)."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def zoo_models(work=None):
    """(work folder, models folder); generates the models unless they are already there."""
    work = work or tempfile.mkdtemp(prefix="symbolite-bench-")
    models = os.path.join(work, "models")
    if not os.path.exists(os.path.join(models, "squeezenet1_1.ptl")):
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/fixtures/generate.py"), models,
                        "--goldens", os.path.join(work, "goldens"), "--torchvision"],
                       check=True, stdout=subprocess.DEVNULL)
    return work, models


def zoo_parser(description, runs):
    """The options every zoo benchmark takes: --build, --models, --runs."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--models", help="reuse models generated here (else a temp dir)")
    parser.add_argument("--runs", type=int, default=runs)
    return parser


def zoo_image(work, size=224):
    """A fixed random 1x3xSIZExSIZE input (seed 0) saved as WORK/image.npy; its path."""
    import numpy
    import torch

    torch.manual_seed(0)
    image = os.path.join(work, "image.npy")
    numpy.save(image, torch.randn(1, 3, size, size).numpy())
    return image


def symbolite_bench(symbolite, path, image, runs, warmup, env=None):
    """(median ms, load ms, peak RSS MiB) of `symbolite bench` on one model (its own process, so
    the peak RSS, VmHWM, is the model's alone)."""
    import re

    out = subprocess.run([symbolite, "bench", path, "--input", image, "--runs", str(runs), "--warmup", str(warmup)],
                         check=True, capture_output=True, text=True, env=env).stdout
    m = re.search(r"load ([\d.]+) ms; \d+ runs: min [\d.]+ ms, median ([\d.]+) ms.*peak RSS ([\d.]+) MiB", out)
    return float(m.group(2)), float(m.group(1)), float(m.group(3))
