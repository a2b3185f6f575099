#!/usr/bin/python3
"""Differential test of `symbolite lower` against PyTorch 1.13 with libsymbolite_torch.so.

    /usr/bin/python3 tests/interop/run_lower_interop.py --symbolite build/bin/symbolite \\
        --plugin build/lib/libsymbolite_torch.so [--zoo]

For every committed fixture model with debug info, and torchvision models saved by live
PyTorch (resnet18 and mobilenet_v3_small; every classification model with --zoo), lowers the
model with `symbolite lower --backend eager` (every operator symbolite has a kernel for moves
into delegate programs) and `--backend xnnpack` (what XNNPACK computes; in PyTorch the plugin
runs those programs on ATen) and checks:

  - PyTorch 1.13's `_load_for_lite_interpreter`, with the plugin loaded, loads the lowered
    file: it is a faithful to_backend file;
  - every valid call of the run fixtures gives, in PyTorch, the outputs PyTorch computes on
    the original (torchvision: a random image, rtol = atol = 1e-4), and so does
    `symbolite run` on the lowered file;
  - every failing call of the run fixtures fails in PyTorch with PyTorch's message for the
    original, and with exactly the module hierarchy and traceback symbolite prints for the
    lowered file (PyTorch's `<unknown>` function names aside, which symbolite names);
    torchvision models get a wrong channel count, which fails inside the first delegate;
  - every delegate handle `lower --json` reports symbolicates, to the module hierarchy the
    report gives for its node.

Prints one line per check and `N passed, M failed`; exits 1 on a failure, 77 without torch or
without the plugin.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, os.pardir, "fixtures")
sys.path.insert(0, FIXTURES)
sys.path.insert(0, HERE)
import generate  # noqa: E402
from run_export_interop import CI_TORCHVISION, ZOO, flatten, generate_plain, pytorch_loads, run  # noqa: E402
from run_interop import Checks  # noqa: E402

SKIP = 77
FIXTURE_MODELS = ["nested", "lstm", "encoder", "encoder64", "conv1d", "pooling", "shape_ops",
                  "tag_minus_one", "tag_minus_one_frame"]
CI_LOWERED_TORCHVISION = [m for m in CI_TORCHVISION if m != "efficientnet_b0"]
BACKENDS = ["eager", "xnnpack"]
UNKNOWN = re.compile(r"<unknown>")


def load_input(path):
    import numpy
    import torch
    if path.endswith(".npy"):
        return torch.from_numpy(numpy.load(path))
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def close(outputs, expected):
    """rtol = atol = 1e-4, atol scaled by the output's magnitude when that is above 1: with
    default initialisation some zoo models (inception_v3) output values near 1e12, where a
    backend's own summation order alone moves the last digits by more than 1e-4."""
    import torch
    if len(outputs) != len(expected):
        return False
    for o, e in zip(outputs, expected):
        o, e = o.detach(), e.detach()
        if o.dtype != e.dtype or o.shape != e.shape:
            return False
        if o.is_floating_point():
            scale = max(1.0, float(e.abs().max())) if e.numel() else 1.0
            if not torch.allclose(o, e, rtol=1e-4, atol=1e-4 * scale, equal_nan=True):
                return False
        elif not torch.equal(o, e):
            return False
    return True


def named(text, method="forward"):
    """PyTorch's text with `<unknown>` function names replaced by the method's (symbolite names
    them: README)."""
    return UNKNOWN.sub(method, text)


def symbolite_error(binary, model, method, input_files):
    """(message, hierarchy, traceback) symbolite prints for a failing `run`."""
    code, _out, err = run(binary, "run", model, "--method", method, "--input", *input_files)
    if code == 0:
        return None
    marker = "\n\nModule hierarchy:"
    if marker not in err:
        return (err.strip(), "", "")
    head, rest = err.split(marker, 1)
    hierarchy, traceback = rest.split("\n", 1)
    message = head.split(": ", 1)[1] if ": " in head else head
    return message, hierarchy, traceback.rstrip()


def pytorch_error(module, method, args):
    try:
        module.run_method(method, *args)
    except Exception as e:  # noqa: BLE001 (PyTorch raises RuntimeError subclasses)
        return str(e)
    return None


def compare_failure(label, pytorch_text, ours, expected_message, method="forward", tracebacks=True):
    problems = []
    if pytorch_text is None:
        return [f"{label}: PyTorch did not fail on the lowered file"]
    if ours is None:
        return [f"{label}: symbolite did not fail on the lowered file"]
    message, hierarchy, traceback = generate.split_error(pytorch_text)
    if message != expected_message:
        problems.append(f"{label}: PyTorch's message on the lowered file\n{message}\ndiffers from "
                        f"its message on the original\n{expected_message}")
    if ours[0] != message:
        problems.append(f"{label}: messages differ: symbolite {ours[0]!r}, PyTorch {message!r}")
    if ours[1] != named(hierarchy, method):
        problems.append(f"{label}: module hierarchies differ:\n symbolite {ours[1]}\n PyTorch   {hierarchy}")
    # Where PyTorch lost source ranges, symbolite prints the frame and says so (README).
    if tracebacks and ours[2] != named(traceback, method):
        problems.append(f"{label}: tracebacks differ:\nsymbolite:\n{ours[2]}\nPyTorch:\n{traceback}")
    return problems


def lower(binary, model, out, backend="eager"):
    code, stdout, err = run(binary, "lower", model, "--backend", backend, "-o", out, "--json")
    if code != 0:
        raise RuntimeError(f"lower {os.path.basename(model)}: exit {code}: {err.strip()}")
    return json.loads(stdout)


def check_handles(binary, lowered, report):
    """Every delegate handle, alone, symbolicates to its node's module hierarchy through the
    lowered module that runs it (top(Net)::forward.__lowered_0(Net)::forward.<the node's>)."""
    nodes = [(p["attribute"], n) for p in report["partitions"] for n in p["delegate_nodes"]]
    if not nodes:
        return ["no delegate node"]
    code, out, err = run(binary, "symbolicate", lowered, *[str(n["debug_handle"]) for _a, n in nodes], "--json")
    if code != 0:
        return [f"symbolicate: exit {code}: {err.strip()}"]
    results = {r["handle"]: r for r in json.loads(out)["results"]}
    problems = []
    for attribute, n in nodes:
        top, rest = n["module_hierarchy"].split("::forward.", 1)
        top_type = top[top.index("(") + 1:-1]
        want = f"{top}::forward.{attribute}({top_type})::forward.{rest}"
        got = results.get(n["debug_handle"], {}).get("module_hierarchy")
        if got != want:
            problems.append(f"handle {n['debug_handle']}: {got} instead of {want}")
    return problems


def check_fixture(checks, binary, stem, manifest, work, backend):
    import torch.jit.mobile
    model = os.path.join(FIXTURES, "models", f"{stem}.ptl")
    lowered = os.path.join(work, f"{stem}.{backend}.ptl")
    try:
        report = lower(binary, model, lowered, backend)
    except RuntimeError as e:
        checks.record(f"{stem}.ptl: lower --backend {backend}", [str(e)])
        return
    if not report["partitions"]:
        checks.record(f"{stem}.ptl: nothing for --backend {backend} to lower", [])
        return
    stem = f"{stem}.ptl --backend {backend}"
    try:
        module = torch.jit.mobile._load_for_lite_interpreter(lowered)
    except Exception as e:  # noqa: BLE001
        checks.record(f"{stem}: PyTorch loads the lowered file", [str(e)[:800]])
        return
    checks.record(f"{stem}: PyTorch loads the lowered file "
                  f"({len(report['partitions'])} partitions)", [])
    original = torch.jit.mobile._load_for_lite_interpreter(model) if pytorch_loads(model) else None
    valid, failing = [], []
    for entry in manifest:
        if entry["model"] != os.path.basename(model):
            continue
        directory = os.path.join(FIXTURES, "run", entry["dir"])
        files = [os.path.join(directory, name) for name in entry["inputs"]]
        args = [load_input(f) for f in files]
        label = entry["dir"]
        if "case" not in entry:
            expected = [load_input(os.path.join(directory, name)) for name in entry["outputs"]]
            try:
                got = flatten(module.run_method(entry["method"], *args))
            except Exception as e:  # noqa: BLE001
                valid.append(f"{label}: PyTorch fails on the lowered file: {str(e)[:400]}")
                continue
            if not close(got, expected):
                valid.append(f"{label}: PyTorch's outputs on the lowered file differ from the original's")
            with tempfile.TemporaryDirectory(dir=work) as out_dir:
                code, _o, err = run(binary, "run", lowered, "--method", entry["method"], "--input",
                                    *files, "--output-dir", out_dir)
                if code != 0:
                    valid.append(f"{label}: symbolite run fails: {err.strip()[:400]}")
                    continue
                ours = [load_input(os.path.join(out_dir, f"output_{i}.npy")) for i in range(len(expected))]
                if not close(ours, expected):
                    valid.append(f"{label}: symbolite's outputs on the lowered file differ from PyTorch's")
        elif original is not None:
            failing += compare_failure(label, pytorch_error(module, entry["method"], args),
                                       symbolite_error(binary, lowered, entry["method"], files),
                                       entry["message"], entry["method"],
                                       entry["lost_source_ranges"] == 0)
    checks.record(f"{stem}: valid calls give PyTorch's outputs, in PyTorch and in symbolite", valid)
    checks.record(f"{stem}: failing calls fail alike in PyTorch and symbolite", failing)
    checks.record(f"{stem}: every delegate handle symbolicates", check_handles(binary, lowered, report))


def check_torchvision(checks, binary, factory, work, backend):
    import numpy
    import torch
    import torch.jit.mobile
    models = os.path.join(work, "torchvision")
    os.makedirs(models, exist_ok=True)
    model = os.path.join(models, f"{factory}.ptl")
    if not os.path.exists(model):
        generate_plain(models, factory)
    lowered = os.path.join(work, f"{factory}.{backend}.ptl")
    try:
        report = lower(binary, model, lowered, backend)
    except RuntimeError as e:
        checks.record(f"{factory}: lower --backend {backend}", [str(e)])
        return
    factory = f"{factory} --backend {backend}"
    nodes = sum(len(p["delegate_nodes"]) for p in report["partitions"])
    try:
        module = torch.jit.mobile._load_for_lite_interpreter(lowered)
    except Exception as e:  # noqa: BLE001
        checks.record(f"{factory}: PyTorch loads the lowered file", [str(e)[:800]])
        return
    checks.record(f"{factory}: PyTorch loads the lowered file ({len(report['partitions'])} partitions, "
                  f"{nodes} delegate nodes, {len(report['rejected'])} nodes kept)", [])
    reference = model
    if not pytorch_loads(model):
        # PyTorch refuses its own file (source-range tag -1 rows, e.g. convnext): compare with a
        # copy without those rows, which it runs (same code and weights).
        reference = os.path.join(work, f"{os.path.basename(model)}.repaired.ptl")
        generate.drop_minus_one_rows(model, reference)
    torch.manual_seed(0)
    image = torch.randn(1, 3, 224, 224)
    image_file = os.path.join(work, "input.npy")
    numpy.save(image_file, image.numpy())
    original = torch.jit.mobile._load_for_lite_interpreter(reference)
    problems = []
    symbolite_runs_original = True
    try:
        expected = flatten(original(image))
    except Exception as e:  # noqa: BLE001
        # PyTorch cannot run some of its own files (googlenet, inception_v3 return NamedTuples:
        # std::bad_alloc): the lowered file must fail the same way in PyTorch, and symbolite's
        # run of the original is the reference.
        expected = None
        lowered_error = pytorch_error(module, "forward", [image])
        if lowered_error != str(e):
            problems.append(f"PyTorch fails on the original with {str(e)[:200]} but on the lowered file "
                            f"with {str(lowered_error)[:200]}")
        original_out = os.path.join(work, f"{os.path.basename(model)}.original.out")
        code, _o, err = run(binary, "run", model, "--input", image_file, "--output-dir", original_out)
        if code != 0:
            symbolite_runs_original = False
            problems.append(f"neither runtime runs the original: {err.strip()[:300]}")
        else:
            expected = [load_input(os.path.join(original_out, "output_0.npy"))]
    if expected is not None and expected and expected[0] is not None:
        try:
            if not close(flatten(module(image)), expected):
                problems.append("PyTorch's output on the lowered file differs from the original's")
        except Exception:  # noqa: BLE001 (already compared above when PyTorch cannot run it)
            pass
    out_dir = os.path.join(work, f"{os.path.basename(lowered)}.out")
    code, _o, err = run(binary, "run", lowered, "--input", image_file, "--output-dir", out_dir)
    if code != 0:
        if "not implemented by symbolite" in err and run(binary, "run", model, "--input", image_file)[0] != 0:
            # Operators the interpreter lacks (issue 11) stop the original too: not the lowering's.
            symbolite_runs_original = False
        else:
            problems.append(f"symbolite run fails: {err.strip()[:400]}")
    elif expected is not None and not close([load_input(os.path.join(out_dir, "output_0.npy"))], expected[:1]):
        problems.append("symbolite's output on the lowered file differs from PyTorch's")
    label = "outputs equal the original's in PyTorch and symbolite"
    if not symbolite_runs_original:
        label += " (symbolite cannot run the original: operators it lacks)"
    checks.record(f"{factory}: {label}", problems)

    if symbolite_runs_original:
        wrong = torch.randn(1, 4, 64, 64)
        wrong_file = os.path.join(work, "wrong.npy")
        numpy.save(wrong_file, wrong.numpy())
        text = pytorch_error(module, "forward", [wrong])
        original_text = pytorch_error(original, "forward", [wrong])
        checks.record(f"{factory}: a wrong channel count fails alike inside the delegate",
                      compare_failure("4 channels", text, symbolite_error(binary, lowered, "forward", [wrong_file]),
                                      generate.split_error(original_text)[0] if original_text else ""))
    checks.record(f"{factory}: every delegate handle symbolicates", check_handles(binary, lowered, report))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbolite", required=True)
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--zoo", action="store_true", help="every torchvision classification model")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch is not installed for this Python: skipped")
        return SKIP
    if not os.path.exists(args.plugin):
        print(f"no plugin at {args.plugin}: skipped")
        return SKIP
    torch.ops.load_library(os.path.abspath(args.plugin))
    binary = os.path.abspath(args.symbolite)
    checks = Checks()
    with open(os.path.join(FIXTURES, "run", "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    with tempfile.TemporaryDirectory(prefix="symbolite-lower-") as work:
        for backend in BACKENDS:
            for stem in FIXTURE_MODELS:
                check_fixture(checks, binary, stem, manifest, work, backend)
        for factory in ZOO if args.zoo else CI_LOWERED_TORCHVISION:
            for backend in BACKENDS:
                try:
                    check_torchvision(checks, binary, factory, work, backend)
                except Exception as e:  # noqa: BLE001 (one model's failure must not hide the others')
                    checks.record(f"{factory} --backend {backend}", [f"{type(e).__name__}: {str(e)[:500]}"])
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
