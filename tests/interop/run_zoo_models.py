#!/usr/bin/python3
"""Runs torchvision 0.14's models in symbolite and PyTorch 1.13 and compares (by hand; results in docs/MODELS.md).

Usage: /usr/bin/python3 tests/interop/run_zoo_models.py --symbolite build/bin/symbolite [--models a,b,...]

Each model is built with weights=None (segmentation: weights_backbone=None too), any Linear
layer left at all-zero weights (vit's head) drawn at random so that the output says something,
put in eval mode, scripted and saved for the lite interpreter with debug info (PyTorch runs a
copy without source-range tag -1 rows where it refuses its own file). Both runtimes run it on
the same random input; the check is max|symbolite - PyTorch| <= 1e-4 x max|PyTorch|
on the first output tensor (for dicts, "out"). Prints one line per model with both times
(whole `symbolite run` process vs PyTorch's call) and a summary.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "fixtures"))
import generate  # noqa: E402

SKIP = 77
CLASSIFICATION = [
    "alexnet", "convnext_tiny", "densenet121", "efficientnet_b0", "efficientnet_v2_s", "googlenet",
    "inception_v3", "maxvit_t", "mnasnet0_5", "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small",
    "regnet_x_400mf", "regnet_y_400mf", "resnet18", "resnet50", "resnext50_32x4d", "shufflenet_v2_x0_5",
    "squeezenet1_1", "swin_t", "swin_v2_t", "vgg11", "vit_b_16", "wide_resnet50_2",
]
SEGMENTATION = ["fcn_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]
VIDEO = ["r3d_18", "mc3_18", "r2plus1d_18"]
# PyTorch 1.13 cannot save any torchvision 0.14 detection model for the lite interpreter once
# scripted (ImageList is a TorchScript class; retinanet's no_grad is an ENTER instruction), so
# these are traced, as PyTorch's mobile recipes do: a wrapper takes one 3xHxW image and returns
# the first image's (boxes, scores, labels), for that image size. Score thresholds at 0 so
# that random weights still give boxes; heavy models at min_size=max_size=320.
DETECTION = {
    "ssdlite320_mobilenet_v3_large": dict(score_thresh=0.0),
    "ssd300_vgg16": dict(score_thresh=0.0),
    "fasterrcnn_mobilenet_v3_large_320_fpn": dict(box_score_thresh=0.0),
    "fasterrcnn_resnet50_fpn": dict(box_score_thresh=0.0, min_size=320, max_size=320),
    "retinanet_resnet50_fpn": dict(score_thresh=0.0, min_size=320, max_size=320),
    "fcos_resnet50_fpn": dict(score_thresh=0.0, min_size=320, max_size=320),
}
DETECTION_IMAGE = (3, 200, 240)


def build_detection(name, path, image):
    import torch
    import torchvision

    class FirstImage(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, img):
            d = self.model([img])[0]
            return d["boxes"], d["scores"], d["labels"]

    torch.manual_seed(0)
    model = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None,
                                                        **DETECTION[name])
    with torch.no_grad():
        traced = torch.jit.trace(FirstImage(model.eval()).eval(), (image,), check_trace=False)
    traced._c._save_for_mobile(path, {}, True)


def build(name, path):
    import torch
    import torchvision
    torch.manual_seed(0)
    if name in SEGMENTATION or hasattr(torchvision.models.segmentation, name):
        model = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None)
    elif name in VIDEO or hasattr(torchvision.models.video, name):
        model = getattr(torchvision.models.video, name)(weights=None)
    else:
        model = getattr(torchvision.models, name)(weights=None)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.Linear) and not m.weight.any():
                torch.nn.init.normal_(m.weight, std=0.02)
    torch.jit.script(model.eval())._c._save_for_mobile(path, {}, True)


def first_tensor(value):
    import torch
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, dict):
        return first_tensor(value.get("out", next(iter(value.values()))))
    if isinstance(value, (tuple, list)):
        return first_tensor(value[0])
    return None


def check(binary, name, work):
    import numpy
    import torch
    import torch.jit.mobile
    import torchvision  # noqa: F401  (torchvision::nms and roi_align for PyTorch's run)
    path = os.path.join(work, f"{name}.ptl")
    torch.manual_seed(1)
    if name in DETECTION:
        x = torch.rand(*DETECTION_IMAGE)
        build_detection(name, path, x)
    else:
        build(name, path)
        torch.manual_seed(1)
        video = name in VIDEO or name.startswith(("r3d", "mc3", "r2plus1d", "s3d", "mvit"))
        shape = (1, 3, 8, 112, 112) if video else (1, 3, 299, 299) if name == "inception_v3" else (1, 3, 224, 224)
        x = torch.randn(*shape)
    inp = os.path.join(work, f"{name}.in.npy")
    numpy.save(inp, x.numpy())
    try:
        module = torch.jit.mobile._load_for_lite_interpreter(path)
    except RuntimeError:
        # PyTorch refuses some of its own files (source-range tag -1 rows: convnext,
        # efficientnet): it runs a copy without those rows, same code and weights.
        repaired = os.path.join(work, f"{name}.repaired.ptl")
        generate.drop_minus_one_rows(path, repaired)
        module = torch.jit.mobile._load_for_lite_interpreter(repaired)
    start = time.monotonic()
    try:
        result = module(x)
        want = first_tensor(result)
    except Exception as e:  # noqa: BLE001 (googlenet, inception_v3: PyTorch cannot run its own file)
        want = None
        pytorch_error = str(e).split("\n")[0][:100]
    pytorch_s = time.monotonic() - start
    out = os.path.join(work, f"{name}.out")
    start = time.monotonic()
    run = subprocess.run([binary, "run", path, "--input", inp, "--output-dir", out], capture_output=True, text=True)
    symbolite_s = time.monotonic() - start
    if run.returncode != 0:
        return False, f"symbolite fails: {run.stderr.strip().splitlines()[0][:300]}"
    if want is None:
        return True, f"runs (PyTorch cannot run its own file: {pytorch_error}); symbolite {symbolite_s:.1f} s"
    if name in DETECTION:
        # boxes and scores within 1e-4 of their largest value, labels exactly, same counts
        ok, err, scale = True, 0.0, 0.0
        for k, w in enumerate(result):
            got = numpy.load(os.path.join(out, f"output_{k}.npy"))
            w = w.detach().numpy()
            if got.shape != w.shape:
                return False, f"output {k}: shape {got.shape}, PyTorch {w.shape}"
            if w.size == 0:
                continue
            if w.dtype.kind == "f":
                e, m = float(abs(got - w).max()), float(abs(w).max())
                ok &= e <= 1e-4 * m
                err, scale = max(err, e / m if m else e), max(scale, m)
            else:
                ok &= bool((got == w).all())
        return ok, (f"{len(result[0])} boxes; max|err|/max|out| {err:.2g} (boxes, scores), labels "
                    f"{'equal' if ok else 'differ'}; PyTorch {pytorch_s:.2f} s, symbolite {symbolite_s:.2f} s")
    got = numpy.load(os.path.join(out, "output_0.npy"))
    w = want.detach().numpy()
    err, scale = float(abs(got - w).max()), float(abs(w).max())
    ok = err <= 1e-4 * scale
    return ok, f"max|err| {err:.2g} of max|out| {scale:.3g}; PyTorch {pytorch_s:.2f} s, symbolite {symbolite_s:.2f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbolite", required=True)
    parser.add_argument("--models", help="comma-separated subset")
    args = parser.parse_args()
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch is not installed for this Python: skipped")
        return SKIP
    names = args.models.split(",") if args.models else CLASSIFICATION + SEGMENTATION + VIDEO + list(DETECTION)
    binary = os.path.abspath(args.symbolite)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="symbolite-zoo-") as work:
        for name in names:
            try:
                ok, text = check(binary, name, work)
            except Exception as e:  # noqa: BLE001 (one model's failure must not hide the others')
                ok, text = False, f"{type(e).__name__}: {str(e)[:300]}"
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {text}", flush=True)
    print(f"{len(names) - failed} of {len(names)} models match PyTorch")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
