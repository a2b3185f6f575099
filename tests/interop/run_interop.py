#!/usr/bin/python3
"""Differential test: symbolite against the PyTorch 1.13 installed on this machine.

    /usr/bin/python3 tests/interop/run_interop.py --symbolite build/symbolite/cli/symbolite

Regenerates every fixture and golden with live PyTorch into a fresh temporary folder
(tests/fixtures/generate.py --torchvision, which adds torchvision's efficientnet_b0 and
mobilenet_v3_small), then asks symbolite about the same models and compares:

  - `symbolicate --json` for every failing case of every golden: op, bytecode site, module
    hierarchy and traceback must be PyTorch's, except that symbolite names the top frame's
    function where PyTorch 1.13 prints <unknown>;
  - `symbolicate --json` for every debug handle of every model: found, right op and site, and
    `partial` with notes exactly where PyTorch wrote source-range tag -1;
  - models without debug info: symbolite must not claim a module hierarchy;
  - `inspect --json`: top type, bytecode version, methods, debug records, module tree;
  - `profile --trace` for every valid call: PyTorch's profiler events, shapes and FLOPs
    (profile_check.py).

Prints one line per check, then `N passed, M failed`; exits 1 if any check failed and 77 (the
ctest skip code) if this Python has no torch.
"""

import argparse
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, os.pardir, "fixtures")
sys.path.insert(0, FIXTURES)
import generate  # noqa: E402  (torch-free at import time; shares the <unknown> rule)
from profile_check import check_profile  # noqa: E402  (tests/interop)

SKIP = 77
# Handles per symbolicate call: keeps command lines far below ARG_MAX.
HANDLES_PER_CALL = 2000
# A failure report shows at most this many differing handles.
SHOWN_MISMATCHES = 5


class Checks:
    """Counts and prints checks: `ok   name` or `FAIL name` with the problems indented."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def record(self, name, problems):
        """One check: passes when `problems` (a list of strings) is empty."""
        if problems:
            self.failed += 1
            print(f"FAIL {name}")
            for problem in problems:
                print("     " + problem.replace("\n", "\n     "))
        else:
            self.passed += 1
            print(f"ok   {name}")
        sys.stdout.flush()


class Symbolite:
    """The binary under test, run once per command (per HANDLES_PER_CALL handles)."""

    def __init__(self, binary):
        self.binary = binary

    def run(self, *args):
        """(exit code, parsed JSON stdout or None, stderr)."""
        process = subprocess.run(
            [self.binary, *args], capture_output=True, text=True, timeout=300
        )
        try:
            output = json.loads(process.stdout) if process.stdout.strip() else None
        except json.JSONDecodeError:
            output = None
        return process.returncode, output, process.stderr.strip()

    def symbolicate(self, model, handles):
        """Results by handle, plus the exit codes and stderr of the calls that made them."""
        results, codes, errors = {}, set(), []
        handles = list(handles)
        for start in range(0, len(handles), HANDLES_PER_CALL):
            chunk = [str(h) for h in handles[start : start + HANDLES_PER_CALL]]
            code, output, stderr = self.run("symbolicate", "--json", model, *chunk)
            codes.add(code)
            if stderr:
                errors.append(stderr)
            for result in (output or {}).get("results", []):
                results[result.get("handle")] = result
        return results, codes, errors


def indent(value):
    text = value if isinstance(value, str) else json.dumps(value)
    return "\n".join("  | " + line for line in text.split("\n"))


def expected_got(field, expected, actual):
    return f"{field}: expected\n{indent(expected)}\n   got\n{indent(actual)}"


def differences(expected, actual):
    """Problems for each field of the dict `expected` that `actual` has otherwise."""
    return [
        expected_got(field, value, actual.get(field))
        for field, value in expected.items()
        if actual.get(field) != value
    ]


def frame_blocks(traceback):
    """A traceback's frames: each block starts at a `  File "..."` line."""
    blocks = []
    for line in traceback.split("\n")[1:]:
        if line.startswith('  File "') or not blocks:
            blocks.append(line)
        else:
            blocks[-1] += "\n" + line
    return blocks


def is_subsequence(needles, haystack):
    remaining = iter(haystack)
    return all(any(needle == item for item in remaining) for needle in needles)


def call_failed(codes, errors, accepted=(0,)):
    """Problems with how symbolite exited; its stderr is shown only when the exit was wrong."""
    if set(codes) <= set(accepted):
        return []
    return [f"exit codes {sorted(codes)}, expected {list(accepted)}"] + [
        f"stderr: {error}" for error in errors
    ]


def check_cases(checks, symbolite, models, golden):
    """Every failing case of a model with debug info: symbolite must say what PyTorch said."""
    model = os.path.join(models, golden["model"])
    cases = golden.get("cases", [])
    results, codes, errors = symbolite.symbolicate(model, sorted({c["handle"] for c in cases}))
    for case in cases:
        name = f"{golden['model']} case {case['name']} (handle {case['handle']})"
        result = results.get(case["handle"])
        if result is None:
            checks.record(name, ["no result for the handle"] + call_failed(codes, errors))
            continue
        hierarchy, traceback = generate.symbolite_form(
            case["module_hierarchy"], case["traceback"], case["top_function"]
        )
        expected = {
            "status": "partial" if case["lost_source_ranges"] else "ok",
            "op": case["op"],
            "function": case["function"],
            "instruction": case["instruction"],
            "module_hierarchy": hierarchy,
        }
        problems = differences(expected, result)
        actual_traceback = (result.get("traceback") or "").rstrip()
        if case["lost_source_ranges"]:
            # PyTorch drops frames whose range it lost; symbolite shows them as unknown.
            if not is_subsequence(frame_blocks(traceback), frame_blocks(actual_traceback)):
                problems.append(
                    f"traceback: PyTorch's frames\n{indent(traceback)}\n"
                    f"   are not all, in order, in\n{indent(actual_traceback)}"
                )
            if not result.get("notes"):
                problems.append("notes: empty, but a source range of this handle was lost")
        elif traceback != actual_traceback:
            problems.append(expected_got("traceback", traceback, actual_traceback))
        checks.record(name, problems)


def check_split(checks, symbolite, models, golden):
    """`symbolite split`: PyTorch loads and runs the stripped model and names the failing
    handle; the sidecar alone turns that crash text into what PyTorch prints with the full
    model. A sidecar is refused for any other model."""
    model = os.path.join(models, golden["model"])
    stem = os.path.splitext(golden["model"])[0]
    stripped = os.path.join(models, stem + ".split.ptl")
    sidecar = os.path.join(models, stem + ".symdbg")
    code, _, stderr = symbolite.run("split", model, "--out", stripped, "--debug", sidecar)
    name = f"{golden['model']} split"
    if code != 0:
        checks.record(name, [f"symbolite split exited {code}: {stderr}"])
        return
    checks.record(name, [])
    for case in golden.get("cases", []):
        name = f"{golden['model']} split case {case['name']}"
        _, crash = generate.lite_error(stripped, case["method"], case["inputs"])
        try:
            handle = generate.failing_handle(crash)
        except (AssertionError, ValueError):
            checks.record(name, ["PyTorch's error on the stripped model names no handle:", indent(crash)])
            continue
        problems = [] if handle == case["handle"] else [expected_got("handle", case["handle"], handle)]
        process = subprocess.run(
            [symbolite.binary, "symbolicate", "--json", "--debug", sidecar, "-"],
            input=crash, capture_output=True, text=True, timeout=300,
        )
        results = json.loads(process.stdout).get("results", []) if process.stdout.strip() else []
        if process.returncode != 0 or len(results) != 1:
            problems.append(f"symbolicate --debug exited {process.returncode}: {process.stderr.strip()}")
            checks.record(name, problems)
            continue
        hierarchy, traceback = generate.symbolite_form(
            case["module_hierarchy"], case["traceback"], case["top_function"]
        )
        problems += differences({"module_hierarchy": hierarchy}, results[0])
        if not case["lost_source_ranges"] and traceback != (results[0].get("traceback") or "").rstrip():
            problems.append(expected_got("traceback", traceback, results[0].get("traceback")))
        checks.record(name, problems)
    # The sidecar must refuse a model it was not made for (here: the split model's own
    # stripped copy is accepted, a different fixture is not).
    other = os.path.join(models, "tag_minus_one_frame.ptl" if stem != "tag_minus_one_frame" else "nested.ptl")
    code_ok, _, err_ok = symbolite.run("symbolicate", "--debug", sidecar, stripped, str(golden.get("cases", [{"handle": 0}])[0]["handle"]))
    code_bad, _, err_bad = symbolite.run("symbolicate", "--debug", sidecar, other, "1")
    problems = []
    if code_ok != 0:
        problems.append(f"sidecar refused its own stripped model: {err_ok}")
    if code_bad != 1 or "belongs to model" not in err_bad:
        problems.append(f"sidecar accepted a different model (exit {code_bad}): {err_bad}")
    checks.record(f"{golden['model']} sidecar matches only its model", problems)


def save_inputs(directory, inputs_expr):
    """Writes the call's arguments as .npy (tensors) or .json (the rest); None when an
    argument cannot be passed on the command line (a list of tensors, or a non-contiguous
    tensor, whose strides the call may depend on)."""
    import numpy
    import torch

    torch.manual_seed(0)
    args = eval(inputs_expr, {"torch": torch})  # our own constant expressions, above
    paths = []
    for i, arg in enumerate(args):
        if isinstance(arg, torch.Tensor) and not arg.is_contiguous():
            return None, args  # .npy inputs are read as contiguous tensors
        if isinstance(arg, torch.Tensor):
            path = os.path.join(directory, f"input_{i}.npy")
            numpy.save(path, arg.numpy())
        elif isinstance(arg, (int, float, bool, str)) or arg is None:
            path = os.path.join(directory, f"input_{i}.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(arg, f)
        else:
            return None, args
        paths.append(path)
    return paths, args


def flatten_tensors(value):
    """The tensors of a result in the order `symbolite run` writes them as output_<i>.npy:
    tuples and lists (nested ones too) walked in order; other values are printed only."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in flatten_tensors(item)]
    return []


def check_run(checks, symbolite, models, golden):
    """`symbolite run`: the same outputs as PyTorch's lite interpreter for valid calls, and
    for every failing case the same exception class, message, module hierarchy and
    traceback (up to the documented improvements)."""
    import numpy
    import torch
    import torch.jit.mobile

    model = os.path.join(models, golden["model"])
    work = tempfile.mkdtemp(prefix="symbolite-run-")
    try:
        lite = None
        for n, (method, inputs) in enumerate(generate.VALID_CALLS.get(golden["model"], [])):
            name = f"{golden['model']} run {method}{inputs}"
            directory = os.path.join(work, f"valid{n}")
            os.makedirs(directory)
            paths, args = save_inputs(directory, inputs)
            if lite is None:
                loadable = model.replace(".ptl", "_repaired.ptl")
                lite = torch.jit.mobile._load_for_lite_interpreter(
                    loadable if os.path.exists(loadable) else model)
            expected = flatten_tensors(lite.run_method(method, *args))
            out_dir = os.path.join(directory, "out")
            process = subprocess.run(
                [symbolite.binary, "run", model, "--method", method, "--input", *paths,
                 "--output-dir", out_dir], capture_output=True, text=True, timeout=600)
            problems = []
            if process.returncode != 0:
                problems.append(f"exit {process.returncode}: {process.stderr.strip()}")
            else:
                written = len([f for f in (os.listdir(out_dir) if os.path.isdir(out_dir) else [])
                               if f.startswith("output_")])
                if written != len(expected):
                    problems.append(f"{written} outputs written, PyTorch returned {len(expected)} tensors")
                for i, tensor in enumerate(expected[:written]):
                    got = numpy.load(os.path.join(out_dir, f"output_{i}.npy"))
                    want = tensor.detach().numpy()
                    if got.shape != want.shape or got.dtype != want.dtype:
                        problems.append(f"output_{i}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}")
                    elif want.dtype.kind != "f":
                        # Integer and bool results: exactly PyTorch's.
                        if not numpy.array_equal(got, want):
                            problems.append(f"output_{i}: {int((got != want).sum())} elements differ")
                    elif not numpy.allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True):
                        problems.append(f"output_{i}: max abs diff {numpy.abs(got - want).max()}")
            checks.record(name, problems)

        for n, case in enumerate(golden.get("cases", [])):
            name = f"{golden['model']} run case {case['name']}"
            directory = os.path.join(work, f"case{n}")
            os.makedirs(directory)
            paths, _ = save_inputs(directory, case["inputs"])
            if paths is None:
                checks.record(name + " (skipped: a list of tensors or a non-contiguous tensor cannot be passed)", [])
                continue
            process = subprocess.run(
                [symbolite.binary, "run", model, "--method", case["method"], "--input", *paths],
                capture_output=True, text=True, timeout=600)
            hierarchy, traceback = generate.symbolite_form(
                case["module_hierarchy"], case["traceback"], case["top_function"])
            err = process.stderr
            problems = []
            if process.returncode != 1:
                problems.append(f"exit {process.returncode}, expected 1")
            if not err.startswith(f"{case['error_type']}: {case['message']}\n"):
                problems.append(expected_got("message", f"{case['error_type']}: {case['message']}",
                                             err.split("\n\n")[0]))
            if f"\nModule hierarchy:{hierarchy}\n" not in err:
                problems.append(expected_got("module hierarchy", hierarchy, err))
            if not case["lost_source_ranges"] and traceback not in err:
                problems.append(expected_got("traceback", traceback, err))
            checks.record(name, problems)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def expected_sites(golden):
    sites = {}
    for method in golden["methods"]:
        for index, handle in enumerate(method["debug_handles"] or []):
            sites[handle] = (method["name"], index)
    return sites


def check_every_handle(checks, symbolite, models, golden):
    """Every handle of the model: found, same op and site, partial exactly where tag -1 is."""
    model = os.path.join(models, golden["model"])
    sites = expected_sites(golden)
    lost = set(golden["tag_minus_one"]["rows"]) | set(golden["tag_minus_one"]["frames"])
    results, codes, errors = symbolite.symbolicate(model, sorted(sites))
    mismatches = []
    for handle, (function, instruction) in sorted(sites.items()):
        row = golden["handles"].get(str(handle))
        result = results.get(handle)
        if result is None:
            mismatches.append(f"handle {handle}: no result")
            continue
        expected = {
            "status": "partial" if handle in lost else "ok",
            "op": row["op"] if row else None,
            "function": function,
            "instruction": instruction,
        }
        wrong = {k: result.get(k) for k, v in expected.items() if result.get(k) != v}
        if handle in lost and not result.get("notes"):
            wrong["notes"] = result.get("notes")
        if wrong:
            mismatches.append(f"handle {handle}: expected {expected}, got {wrong}")
    problems = call_failed(codes, errors)
    if mismatches:
        problems.append(f"{len(mismatches)} of {len(sites)} handles differ, e.g.:")
        problems += mismatches[:SHOWN_MISMATCHES]
    checks.record(
        f"{golden['model']} all {len(sites)} handles ({len(lost)} with tag -1)", problems
    )


def check_without_debug_info(checks, symbolite, models, golden):
    """Stripped and no-debug models: symbolite may name the site, never a hierarchy."""
    model = os.path.join(models, golden["model"])
    sites = expected_sites(golden)
    # The no-debug model has no handles at all (PyTorch reports -1): ask for handle 0.
    handles = sorted({c["handle"] for c in golden["cases"] if c["handle"] >= 0}) or [0]
    results, codes, errors = symbolite.symbolicate(model, handles)
    # 1 is "a handle was not found"; 0 is fine too as long as no result claims debug info.
    problems = call_failed(codes, errors, accepted=(0, 1))
    for handle in handles:
        result = results.get(handle)
        if result is None:
            problems.append(f"handle {handle}: no result")
            continue
        if result.get("status") == "ok" or result.get("module_hierarchy"):
            problems.append(f"handle {handle}: claims debug info PyTorch cannot find: {result}")
        if result.get("function") is not None and handle in sites:
            if (result.get("function"), result.get("instruction")) != sites[handle]:
                problems.append(f"handle {handle}: site {result.get('function')}:"
                                f"{result.get('instruction')}, expected {sites[handle]}")
    checks.record(f"{golden['model']} without debug info ({len(handles)} handles)", problems)


def module_paths(tree, prefix=None):
    """(path, type) of every module of an `inspect --json` module tree, root path ""."""
    path = "" if prefix is None else (f"{prefix}.{tree['name']}" if prefix else tree["name"])
    yield path, tree["type"]
    for child in tree.get("children", []):
        yield from module_paths(child, path)


def check_inspect(checks, symbolite, models, golden):
    """`inspect --json` against what Python's pickle read from the same archive."""
    model = os.path.join(models, golden["model"])
    code, info, stderr = symbolite.run("inspect", "--json", model)
    name = f"{golden['model']} inspect"
    if code != 0 or info is None:
        checks.record(name, [f"exit code {code}, stderr: {stderr}"])
        return
    problems = []
    for field in ("top_type", "bytecode_version"):
        if info.get(field) != golden[field]:
            problems.append(expected_got(field, golden[field], info.get(field)))

    fields = ["name", "instructions", "operators", "operator_calls", "constants", "register_size"]
    expected_methods = [{f: m[f] for f in fields} for m in golden["methods"]]
    actual_methods = [{f: m.get(f) for f in fields} for m in info.get("methods", [])]
    if actual_methods != expected_methods:
        problems.append(expected_got("methods", expected_methods, actual_methods))

    # Sorted: the order of named_modules() is not part of symbolite's contract.
    expected_modules = sorted((m["path"], m["type"]) for m in golden["modules"])
    actual_modules = sorted(module_paths(info["modules"])) if info.get("modules") else []
    if actual_modules != expected_modules:
        problems.append(expected_got("modules", expected_modules, actual_modules))

    debug = info.get("debug_info") or {}
    callstack = debug.get("callstack_debug_map")
    rows = golden["callstack_rows"]
    if (callstack is None) != (rows is None) or (callstack and callstack.get("handles") != rows):
        problems.append(expected_got("callstack_debug_map handles", rows, callstack))
    with_handles = sum(len(m["debug_handles"] or []) for m in golden["methods"])
    record = debug.get("mobile_debug_handles")
    if (record.get("instructions") if record else 0) != with_handles:
        problems.append(expected_got("mobile_debug_handles instructions", with_handles, record))
    checks.record(name, problems)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbolite", required=True, help="the symbolite binary")
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it")
    parser.add_argument("--no-torchvision", action="store_true", help="skip the torchvision models")
    parser.add_argument("--model", action="append", metavar="STEM",
                        help="check only this model (golden stem, e.g. lstm); repeatable")
    args = parser.parse_args()

    try:
        importlib.import_module("torch")
    except ImportError:
        print("skipped: this Python has no torch (use Debian's /usr/bin/python3)")
        return SKIP
    if not os.access(args.symbolite, os.X_OK):
        print(f"not an executable: {args.symbolite}")
        return 2

    if args.keep:
        workdir = os.path.abspath(args.keep)
    else:
        workdir = tempfile.mkdtemp(prefix="symbolite-interop-")
    try:
        models = os.path.join(workdir, "models")
        goldens = os.path.join(workdir, "goldens")
        generator = os.path.join(FIXTURES, "generate.py")
        command = [sys.executable, generator, models, "--goldens", goldens]
        if not args.no_torchvision:
            command.append("--torchvision")
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

        checks = Checks()
        symbolite = Symbolite(os.path.abspath(args.symbolite))
        for golden_file in sorted(os.listdir(goldens)):
            if args.model and os.path.splitext(golden_file)[0] not in args.model:
                continue
            with open(os.path.join(goldens, golden_file), encoding="utf-8") as f:
                golden = json.load(f)
            check_inspect(checks, symbolite, models, golden)
            if golden["callstack_rows"] is None:
                check_without_debug_info(checks, symbolite, models, golden)
                continue
            check_cases(checks, symbolite, models, golden)
            check_every_handle(checks, symbolite, models, golden)
            if golden.get("cases"):
                check_split(checks, symbolite, models, golden)
                check_run(checks, symbolite, models, golden)
            check_profile(checks, symbolite, models, golden, generate.VALID_CALLS, save_inputs)
        print(f"{checks.passed} passed, {checks.failed} failed")
        return 1 if checks.failed else 0
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
