#!/usr/bin/python3
"""Differential test of `symbolite export` against PyTorch 1.13 (the oracle).

    /usr/bin/python3 tests/interop/run_export_interop.py --symbolite build/bin/symbolite [--zoo]

For every committed fixture model with debug info, and torchvision models saved by live
PyTorch (resnet18, mobilenet_v3_small, efficientnet_b0; every classification model with
--zoo), exports the model with symbolite and checks:

  - lift -> emit without passes reproduces the original bytecode exactly: instructions,
    operators (with num_specified_args), constants, types, register sizes;
  - two `--stable-handles` exports, in separate processes, are byte-identical;
  - PyTorch's `_load_for_lite_interpreter` loads the export (also for efficientnet_b0, whose
    original PyTorch cannot load: source-range tag -1 rows) and every valid call of the run
    fixtures returns exactly the outputs PyTorch computed on the original;
  - every failing case of the goldens fails on the export with exactly the text PyTorch
    printed for the original: message, module hierarchy, traceback;
  - for every operator instruction, the module hierarchy and traceback of its handle in the
    export equal those of the original's (multisets per method, via `symbolicate --json`);
  - `--passes all` exports load and give the same outputs too;
  - v5, v6 and v7 bytecode (PyTorch's own backports of fixtures) exports to the v8 original's
    bytecode (constants compared by value: a backport reorders the constant table).

Prints one line per check and `N passed, M failed`; exits 1 on a failure, 77 without torch.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, os.pardir, "fixtures")
sys.path.insert(0, FIXTURES)
sys.path.insert(0, HERE)
import generate  # noqa: E402
from run_interop import Checks  # noqa: E402

SKIP = 77
CI_TORCHVISION = ["resnet18", "mobilenet_v3_small", "efficientnet_b0"]
ZOO = [
    "alexnet", "convnext_tiny", "densenet121", "efficientnet_b0", "efficientnet_v2_s",
    "googlenet", "inception_v3", "mnasnet0_5", "mobilenet_v2", "mobilenet_v3_large",
    "mobilenet_v3_small", "regnet_x_400mf", "regnet_y_400mf", "resnet18", "resnet50",
    "resnext50_32x4d", "shufflenet_v2_x0_5", "squeezenet1_1", "vgg11", "wide_resnet50_2",
]
HANDLES_PER_CALL = 2000


def run(binary, *args):
    process = subprocess.run([binary, *args], capture_output=True, text=True, timeout=600)
    return process.returncode, process.stdout, process.stderr


def bytecode_of(path):
    """{function: (instructions, operators, constants, types, register_size)} of a .ptl."""
    bytecode = generate.read_record(path, "bytecode.pkl")
    out = {}
    for name, code, _schema in bytecode[1:]:
        code = dict(code)
        out[name] = {
            "instructions": [tuple(i) for i in code["instructions"]],
            "operators": [tuple(o) for o in code["operators"]],
            "constants": [constant_form(c) for c in code["constants"]],
            "types": list(code["types"]),
            "register_size": code["register_size"],
        }
    return bytecode[0], out


def constant_form(value):
    """A comparable form of a constant: tensors by their storage reference and shape."""
    if isinstance(value, generate._Global):
        return (value.qualified_name, tuple(constant_form(a) for a in value.args))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(constant_form(v) for v in value))
    if isinstance(value, float) and value != value:
        return "nan"
    return (type(value).__name__, value)


def normalized(code):
    """Instructions with constant indices replaced by the constants (a backport reorders the
    constant table), and the operators."""
    out = []
    for op, x, n in code["instructions"]:
        if op in ("LOADC", "INTERFACE_CALL"):
            out.append((op, code["constants"][x], n))
        else:
            out.append((op, x, n))
    return out, code["operators"], code["types"], code["register_size"]


def compare_normalized(original, exported):
    _, a = bytecode_of(original)
    _, b = bytecode_of(exported)
    problems = []
    for name in a:
        if name not in b or normalized(a[name]) != normalized(b[name]):
            x, y = normalized(a[name])[0], normalized(b.get(name, a[name]))[0]
            first = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
            problems.append(f"{name}: differs from instruction {first}")
    return problems


def compare_bytecode(original, exported):
    problems = []
    _, a = bytecode_of(original)
    version, b = bytecode_of(exported)
    if version != 8:
        problems.append(f"exported bytecode version {version}, expected 8")
    if list(a) != list(b):
        problems.append(f"functions differ: {list(a)} vs {list(b)}")
    for name in a:
        for field in ("instructions", "operators", "constants", "types", "register_size"):
            if a[name][field] != b.get(name, {}).get(field):
                x, y = a[name][field], b.get(name, {}).get(field)
                detail = ""
                if isinstance(x, list) and isinstance(y, list):
                    for i, (p, q) in enumerate(zip(x, y)):
                        if p != q:
                            detail = f" first difference at {i}: {p} vs {q}"
                            break
                    else:
                        detail = f" lengths {len(x)} vs {len(y)}"
                problems.append(f"{name}: {field} differ{detail}")
    return problems


def operator_handles(path):
    """{function: [handle of each OP/OPN instruction]}."""
    bytecode = generate.read_record(path, "bytecode.pkl")
    handles_record = generate.read_record(path, "mobile_debug_handles.pkl")
    handles_of = {name: handles for name, ((_key, (handles,)),) in handles_record[1:]}
    out = {}
    for name, code, _schema in bytecode[1:]:
        instructions = dict(code)["instructions"]
        out[name] = [h for ins, h in zip(instructions, handles_of[name]) if ins[0] in ("OP", "OPN")]
    return out


def symbolications(binary, path, handles):
    result = {}
    for start in range(0, len(handles), HANDLES_PER_CALL):
        chunk = [str(h) for h in handles[start:start + HANDLES_PER_CALL]]
        code, out, err = run(binary, "symbolicate", path, *chunk, "--json")
        if code != 0:
            raise RuntimeError(f"symbolicate {path}: exit {code}: {err.strip()}")
        for entry in json.loads(out)["results"]:
            result[entry["handle"]] = entry
    return result


def compare_symbolication(binary, original, exported):
    problems = []
    a_handles, b_handles = operator_handles(original), operator_handles(exported)
    a = symbolications(binary, original, [h for hs in a_handles.values() for h in hs])
    b = symbolications(binary, exported, [h for hs in b_handles.values() for h in hs])
    for name in a_handles:
        def key(entry):
            return (entry.get("op"), entry.get("module_hierarchy"), entry.get("traceback"))
        ma = collections.Counter(key(a[h]) for h in a_handles[name])
        mb = collections.Counter(key(b[h]) for h in b_handles.get(name, []))
        if ma != mb:
            missing = list((ma - mb).elements())[:2]
            extra = list((mb - ma).elements())[:2]
            problems.append(f"{name}: operator symbolications differ; only in original: {missing}; "
                            f"only in export: {extra}")
    return problems


def call_arguments(expression):
    """The arguments of a run fixture's call, as make_run_fixtures.py made them."""
    import torch
    torch.manual_seed(0)
    return eval(expression, {"torch": torch})  # our own constant expressions


def flatten(value):
    import torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flatten(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flatten(v)]
    return [torch.tensor(value)]


def same_tensor(x, y):
    import torch
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.is_floating_point():
        return bool(torch.equal(torch.nan_to_num(x, nan=0.0), torch.nan_to_num(y, nan=0.0))) and bool(
            torch.equal(torch.isnan(x), torch.isnan(y)))
    return bool(torch.equal(x, y))


def check_runs(exported, reference, model_name, manifest, extra_calls=()):
    """Every valid call of the run fixtures (and `extra_calls`: (method, expression)): the
    export's outputs equal, bit for bit, PyTorch's on `reference` (the original, or a copy
    PyTorch can load)."""
    import torch.jit.mobile
    problems = []
    module = torch.jit.mobile._load_for_lite_interpreter(exported)
    original = torch.jit.mobile._load_for_lite_interpreter(reference)
    # nested_legacy.ptl is nested.ptl saved in the legacy debug format: the same calls.
    model_name = {"nested_legacy.ptl": "nested.ptl"}.get(model_name, model_name)
    calls = [(e["method"], e["call"], e["dir"]) for e in manifest
             if e["model"] == model_name and "case" not in e]
    calls += [(method, call, f"{method}{call}") for method, call in extra_calls]
    for method, call, label in calls:
        try:
            expected = flatten(original.run_method(method, *call_arguments(call)))
        except Exception as e:  # noqa: BLE001
            # PyTorch cannot run some of its own files (googlenet returns a NamedTuple: its
            # lite interpreter throws std::bad_alloc): then the export must fail the same way.
            expected = f"{type(e).__name__}: {e}"
        try:
            outputs = flatten(module.run_method(method, *call_arguments(call)))
        except Exception as e:  # noqa: BLE001
            outputs = f"{type(e).__name__}: {e}"
        if isinstance(expected, str) or isinstance(outputs, str):
            if expected != outputs:
                problems.append(f"{label}: the original gives {str(expected)[:200]}, the export {str(outputs)[:200]}")
            continue
        if len(outputs) != len(expected) or not all(same_tensor(o, e) for o, e in zip(outputs, expected)):
            problems.append(f"{label}: outputs differ from PyTorch's on the original")
    if not calls:
        problems.append("no call to check")
    return problems


def check_cases(exported, golden):
    """Every failing case: the export fails with the very text PyTorch printed for the original."""
    problems = []
    for case in golden.get("cases", []):
        if "error" not in case:
            continue
        _kind, text = generate.lite_error(exported, case["method"], case["inputs"])
        if text != case["error"]:
            problems.append(f"case {case['name']}: PyTorch prints\n{text}\nfor the export, but\n{case['error']}\n"
                            "for the original")
    return problems


def export(binary, model, out, *extra):
    code, _out, err = run(binary, "export", model, "-o", out, *extra)
    if code != 0:
        raise RuntimeError(f"export {os.path.basename(model)} {' '.join(extra)}: exit {code}: {err.strip()}")


def pytorch_loads(path):
    import torch.jit.mobile
    try:
        torch.jit.mobile._load_for_lite_interpreter(path)
        return True
    except Exception:  # noqa: BLE001 (PyTorch raises RuntimeError subclasses)
        return False


def check_model(checks, binary, model, golden, manifest, work, extra_calls=()):
    name = os.path.basename(model)
    stem = os.path.splitext(name)[0]
    reference = model
    pytorch_loads_original = pytorch_loads(model)
    if not pytorch_loads_original:
        # PyTorch refuses its own file (source-range tag -1 rows): compare with a copy
        # without those rows, which it runs.
        reference = os.path.join(work, f"{stem}.repaired.ptl")
        generate.drop_minus_one_rows(model, reference)
    exported = os.path.join(work, f"{stem}.export.ptl")
    try:
        export(binary, model, exported)
    except RuntimeError as e:
        checks.record(f"{name}: export", [str(e)])
        return
    checks.record(f"{name}: lift -> emit reproduces the bytecode", compare_bytecode(model, exported))

    stable = [os.path.join(work, f"{stem}.stable{i}.ptl") for i in (1, 2)]
    for path in stable:
        export(binary, model, path, "--stable-handles")
    with open(stable[0], "rb") as a, open(stable[1], "rb") as b:
        same = a.read() == b.read()
    checks.record(f"{name}: --stable-handles exports are byte-identical", [] if same else ["they differ"])

    import torch.jit.mobile
    try:
        torch.jit.mobile._load_for_lite_interpreter(exported)
        problems = []
    except Exception as e:  # noqa: BLE001 (PyTorch raises RuntimeError subclasses)
        problems = [f"PyTorch cannot load the export: {str(e)[:500]}"]
    checks.record(f"{name}: PyTorch loads the export", problems)
    if problems:
        return
    checks.record(f"{name}: valid calls give PyTorch's outputs",
                  check_runs(exported, reference, name, manifest, extra_calls))
    if golden is not None and pytorch_loads_original:
        checks.record(f"{name}: failing cases fail with PyTorch's text", check_cases(exported, golden))
    checks.record(f"{name}: operator handles symbolicate as in the original",
                  compare_symbolication(binary, model, exported))

    optimized = os.path.join(work, f"{stem}.passes.ptl")
    try:
        export(binary, model, optimized, "--passes", "all")
        torch.jit.mobile._load_for_lite_interpreter(optimized)
        checks.record(f"{name}: --passes all export loads and runs",
                      check_runs(optimized, reference, name, manifest, extra_calls))
    except Exception as e:  # noqa: BLE001
        checks.record(f"{name}: --passes all export loads and runs", [str(e)[:500]])


def check_backported(checks, binary, manifest, work):
    """Older bytecode (v5-v7, made by PyTorch's own backport) lifts and exports as v8: the
    export equals the v8 original's bytecode and runs with its outputs."""
    from torch.jit.mobile import _backport_for_mobile
    for stem in ["nested", "lstm", "shape_ops"]:
        model = os.path.join(FIXTURES, "models", f"{stem}.ptl")
        for version in (5, 6, 7):
            old = os.path.join(work, f"{stem}.v{version}.ptl")
            out = os.path.join(work, f"{stem}.v{version}.export.ptl")
            name = f"{stem}.ptl backported to v{version}"
            try:
                if not _backport_for_mobile(model, old, version):
                    raise RuntimeError("PyTorch could not backport it")
                export(binary, old, out)
            except RuntimeError as e:
                checks.record(f"{name}: export", [str(e)])
                continue
            checks.record(f"{name}: export equals the v8 original's bytecode (constants by value)",
                          compare_normalized(model, out))
            checks.record(f"{name}: export runs with the original's outputs",
                          check_runs(out, model, f"{stem}.ptl", manifest))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbolite", required=True)
    parser.add_argument("--zoo", action="store_true", help="every torchvision classification model")
    args = parser.parse_args()
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch is not installed for this Python: skipped")
        return SKIP
    binary = os.path.abspath(args.symbolite)
    checks = Checks()
    with open(os.path.join(FIXTURES, "run", "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    with tempfile.TemporaryDirectory(prefix="symbolite-export-") as work:
        for stem in ["nested", "nested_legacy", "lstm", "encoder", "encoder64", "conv1d", "pooling",
                     "shape_ops", "tag_minus_one", "tag_minus_one_frame"]:
            model = os.path.join(FIXTURES, "models", f"{stem}.ptl")
            with open(os.path.join(FIXTURES, "goldens", f"{stem}.json"), encoding="utf-8") as f:
                golden = json.load(f)
            check_model(checks, binary, model, golden, manifest, work)

        check_backported(checks, binary, manifest, work)

        models = os.path.join(work, "torchvision")
        goldens = os.path.join(work, "goldens")
        os.makedirs(models)
        os.makedirs(goldens)
        env = dict(os.environ, PYTHONHASHSEED="0")
        for factory in ZOO if args.zoo else CI_TORCHVISION:
            command = [sys.executable, os.path.join(FIXTURES, "generate.py"), models, "--goldens", goldens]
            if factory in generate.TORCHVISION_BUILDERS:
                command += ["--only", factory]
                subprocess.run(command, check=True, env=env, capture_output=True)
                with open(os.path.join(goldens, f"{factory}.json"), encoding="utf-8") as f:
                    golden = json.load(f)
            else:
                generate_plain(models, factory)
                golden = None
            check_model(checks, binary, os.path.join(models, f"{factory}.ptl"), golden, manifest, work,
                        [("forward", "(torch.randn(1, 3, 224, 224),)")])
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


def generate_plain(models, factory):
    """A torchvision model saved with debug info, without goldens (the --zoo run)."""
    code = (
        "import sys, torch, torchvision\n"
        "torch.manual_seed(0)\n"
        f"m = torch.jit.script(torchvision.models.{factory}(weights=None).eval())\n"
        f"m._c._save_for_mobile(sys.argv[1], {{}}, True)\n"
    )
    subprocess.run([sys.executable, "-c", code, os.path.join(models, f"{factory}.ptl")], check=True,
                   env=dict(os.environ, PYTHONHASHSEED="0"))


if __name__ == "__main__":
    sys.exit(main())
