#!/usr/bin/python3
"""Surveys which torch.nn module families and TorchScript builtins symbolite runs, against
PyTorch 1.13's lite interpreter (by hand; cases in tests/interop/nn_families.py).

Usage: /usr/bin/python3 tests/interop/survey_nn_families.py [--symbolite build/bin/symbolite]
           [--json OUT.json] [--markdown OUT.md] [--cases SUBSTR,...] [--keep DIR]

For each case: script it (`torch.jit.script`), save it for the lite interpreter with debug
info (`_save_for_mobile(path, {}, True)`), load it back with `_load_for_lite_interpreter` and
run it (PyTorch's result; when PyTorch refuses its own file for source-range tag -1 rows, a
copy without them). Then `symbolite inspect --json` lists the operators symbolite lacks and
`symbolite run --output-dir DIR --json` runs it on the same inputs (a case counts as missing
operators only when the run reaches one: library code names some on branches not taken)
(tensors as .npy, other values as .json: docs/CLI.md, "Values as files") and the result
(DIR/result.json and output_<i>.npy) is compared with PyTorch's:
- tensors: same dtype and shape; floating point max|err| <= 1e-4 x max|PyTorch| (NaN and
  infinities in the same places), integers and bools exact;
- Python floats (TorchScript's doubles): |err| <= 1e-9 x max(1, |PyTorch|);
- ints, bools, strings, None exact; tuples, lists and dicts element by element (dict keys
  and their order too);
- a model that raises (its own `raise` or a failing `assert`) matches when symbolite raises
  PyTorch's message.

A case in nn_families.KNOWN_GAPS that does not run and match is a "known-gap" (with its
reason), which `--strict` lets pass. Prints one line per case and a summary; `--json` writes every record, `--markdown` a report
(table, missing operators by how many cases need each, other failures with their error text).
"""

import argparse
import collections
import copy
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "fixtures"))

SKIP = 77
# Stages where PyTorch itself fails, which symbolite cannot be blamed for.
PYTORCH_SIDE = ("pytorch-cannot-script", "pytorch-cannot-save", "pytorch-lite-fails")
RUN_TIMEOUT = 60  # seconds, per symbolite run (also given to --timeout)


# ---------------------------------------------------------------------------------------------
# Values to and from symbolite's "values as files".

def json_float(f):
    """A float as symbolite's JSON wants it: with a decimal point, or the $float form."""
    if math.isnan(f):
        return {"$float": "nan"}
    if math.isinf(f):
        return {"$float": "inf" if f > 0 else "-inf"}
    return float(f)


class FloatText(float):
    """A float whose JSON text always has a decimal point (1e+20 would read as an integer)."""

    def __repr__(self):
        text = float.__repr__(self)
        if "." not in text:
            mantissa, _, exponent = text.partition("e")
            text = mantissa + ".0" + ("e" + exponent if exponent else "")
        return text


def encode(value, directory, stem, counter):
    """`value` as a JSON-able structure; tensors inside it are written as .npy beside it."""
    import numpy
    import torch
    if isinstance(value, torch.Tensor):
        name = f"{stem}_t{counter[0]}.npy"
        counter[0] += 1
        numpy.save(os.path.join(directory, name), value.detach().numpy())
        return {"$tensor": name}
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        f = json_float(value)
        return FloatText(f) if isinstance(f, float) else f
    if isinstance(value, tuple):
        return {"$tuple": [encode(v, directory, stem, counter) for v in value]}
    if isinstance(value, list):
        return [encode(v, directory, stem, counter) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: encode(v, directory, stem, counter) for k, v in value.items()}
        return {"$dict": [[encode(k, directory, stem, counter), encode(v, directory, stem, counter)]
                          for k, v in value.items()]}
    raise TypeError(f"cannot write a {type(value).__name__} as an input")


def dump_json(value, path):
    """json.dump, keeping FloatText's decimal point."""
    def text(v):
        if isinstance(v, FloatText):
            return repr(v)
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)}: {text(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(text(x) for x in v) + "]"
        return json.dumps(v)
    with open(path, "w") as f:
        f.write(text(value))


def write_input(value, directory, index):
    """One input file: a tensor as .npy, anything else as .json."""
    import numpy
    import torch
    if isinstance(value, torch.Tensor):
        path = os.path.join(directory, f"in{index}.npy")
        numpy.save(path, value.detach().numpy())
        return path
    path = os.path.join(directory, f"in{index}.json")
    dump_json(encode(value, directory, f"in{index}", [0]), path)
    return path


class Repr(str):
    """An object symbolite wrote as {"$repr": ...} (not a value)."""


def decode(value, directory):
    """A result.json structure as Python values, tensors as numpy arrays."""
    import numpy
    if isinstance(value, dict):
        if len(value) == 1:
            (key, inner), = value.items()
            if key == "$tensor":
                return numpy.load(os.path.join(directory, inner))
            if key == "$tuple":
                return tuple(decode(v, directory) for v in inner)
            if key == "$dict":
                return {freeze(decode(k, directory)): decode(v, directory) for k, v in inner}
            if key == "$float":
                return float(inner)
            if key == "$repr":
                return Repr(inner)
        return {k: decode(v, directory) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v, directory) for v in value]
    return value


def freeze(key):
    return tuple(freeze(k) for k in key) if isinstance(key, (list, tuple)) else key


# ---------------------------------------------------------------------------------------------
# Comparison.

def compare(want, got, where="result"):
    """The first difference between PyTorch's value and symbolite's, or None."""
    import numpy
    import torch
    if isinstance(want, torch.Tensor):
        if not isinstance(got, numpy.ndarray):
            return f"{where}: a tensor expected, symbolite gave {type(got).__name__} {str(got)[:80]}"
        w = want.detach().contiguous().numpy()
        if w.dtype != got.dtype:
            return f"{where}: dtype {got.dtype}, PyTorch {w.dtype}"
        if w.shape != got.shape:
            return f"{where}: shape {list(got.shape)}, PyTorch {list(w.shape)}"
        if w.size == 0:
            return None
        if numpy.issubdtype(w.dtype, numpy.floating):
            wnan, gnan = numpy.isnan(w), numpy.isnan(got)
            if (wnan != gnan).any():
                return f"{where}: NaN at {int((wnan != gnan).sum())} places where PyTorch has none or v.v."
            winf, ginf = numpy.isinf(w), numpy.isinf(got)
            if (winf != ginf).any() or (w[winf] != got[ginf]).any():
                return f"{where}: infinities differ from PyTorch's"
            finite = ~(wnan | winf)
            if not finite.any():
                return None
            err = float(numpy.abs(got[finite].astype(numpy.float64) - w[finite]).max())
            scale = float(numpy.abs(w[finite]).max())
            if err > 1e-4 * scale:
                i = numpy.unravel_index(numpy.argmax(numpy.abs(numpy.where(finite, got - w, 0))), w.shape)
                return (f"{where}: max|err| {err:.3g} > 1e-4 x max|PyTorch| {scale:.3g} "
                        f"(at {list(map(int, i))}: {got[i]!r} vs {w[i]!r})")
            return None
        if not numpy.array_equal(w, got):
            bad = int((w != got).sum())
            return f"{where}: {bad} of {w.size} values differ ({got.ravel()[:6].tolist()} vs {w.ravel()[:6].tolist()})"
        return None
    if isinstance(want, bool) or want is None or isinstance(want, str):
        if type(got) is not type(want) or got != want:
            return f"{where}: {got!r} ({type(got).__name__}), PyTorch {want!r}"
        return None
    if isinstance(want, int):
        if type(got) is not int or got != want:
            return f"{where}: {got!r} ({type(got).__name__}), PyTorch {want!r}"
        return None
    if isinstance(want, float):
        if type(got) is not float:
            return f"{where}: {got!r} ({type(got).__name__}), PyTorch {want!r} (float)"
        if math.isnan(want) or math.isnan(got):
            return None if math.isnan(want) and math.isnan(got) else f"{where}: {got!r}, PyTorch {want!r}"
        if math.isinf(want) or math.isinf(got):
            return None if want == got else f"{where}: {got!r}, PyTorch {want!r}"
        if abs(got - want) > 1e-9 * max(1.0, abs(want)):
            return f"{where}: {got!r}, PyTorch {want!r}"
        return None
    if isinstance(want, (tuple, list)):
        if type(got) is not type(want):
            return f"{where}: a {type(want).__name__} expected, symbolite gave {type(got).__name__}"
        if len(got) != len(want):
            return f"{where}: {len(got)} elements, PyTorch {len(want)}"
        for i, (w, g) in enumerate(zip(want, got)):
            diff = compare(w, g, f"{where}[{i}]")
            if diff:
                return diff
        return None
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{where}: a dict expected, symbolite gave {type(got).__name__}"
        wkeys = [freeze(k) for k in want]
        if wkeys != list(got):
            return f"{where}: keys {list(got)}, PyTorch {wkeys}"
        for k, w in want.items():
            diff = compare(w, got[freeze(k)], f"{where}[{k!r}]")
            if diff:
                return diff
        return None
    return f"{where}: cannot compare a PyTorch {type(want).__name__}"


# ---------------------------------------------------------------------------------------------
# One case.

def first_line(text):
    lines = [line for line in str(text).strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def pytorch_error(e):
    """A PyTorch exception's message without its long C++/TorchScript trailers."""
    text = str(e).strip()
    return f"{type(e).__name__}: {text[:2000]}"


def survey_case(c, binary, work):
    """Runs one case through PyTorch and symbolite; returns its record."""
    import torch
    import torch.jit.mobile
    import generate
    import nn_families
    rec = collections.OrderedDict(
        name=c.name, family=c.name.split("/")[0], scripts=False, saves=False, lite_runs=False,
        lite_note=None, lite_error=None, missing_operators=None, symbolite_runs=None, match=None,
        stage=None, error=None, seconds=None)
    start = time.monotonic()
    directory = os.path.join(work, c.name.replace("/", "__"))
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "model.ptl")

    def done(stage, error=None):
        # Paths in messages are shown relative to the work directory (it is temporary).
        rec["stage"], rec["error"] = stage, None if error is None else error.replace(work + os.sep, "")
        rec["seconds"] = round(time.monotonic() - start, 3)
        return rec

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        try:
            scripted = torch.jit.script(c.build())
        except Exception as e:  # noqa: BLE001 (any scripting failure is a finding)
            return done("pytorch-cannot-script", pytorch_error(e))
        rec["scripts"] = True
        try:
            scripted._c._save_for_mobile(path, {}, True)
        except Exception as e:  # noqa: BLE001
            return done("pytorch-cannot-save", pytorch_error(e))
        rec["saves"] = True
        torch.manual_seed(1)
        inputs = c.inputs()
        files = [write_input(v, directory, i) for i, v in enumerate(inputs)]

        # PyTorch's lite interpreter: the reference (TorchScript's full interpreter for the
        # cases the lite one crashes on, which would take this process with it).
        want, lite_error = None, None
        crash = nn_families.LITE_CRASHES.get(c.name)
        if crash is not None:
            want = scripted(*copy.deepcopy(inputs))
            rec["lite_note"] = f"PyTorch's lite interpreter {crash}: compared with TorchScript's full interpreter"
        else:
            try:
                try:
                    lite = torch.jit.mobile._load_for_lite_interpreter(path)
                except RuntimeError:
                    repaired = os.path.join(directory, "repaired.ptl")
                    generate.drop_minus_one_rows(path, repaired)
                    lite = torch.jit.mobile._load_for_lite_interpreter(repaired)
                    rec["lite_note"] = "PyTorch refuses its own file (tag -1 rows); ran a copy without them"
                want = lite(*copy.deepcopy(inputs))
                rec["lite_runs"] = True
            except Exception as e:  # noqa: BLE001
                lite_error = pytorch_error(e)
                rec["lite_error"] = lite_error

    # symbolite: the operators it lacks, then the run.
    p = subprocess.run([binary, "inspect", "--json", path], capture_output=True, text=True)
    if p.returncode != 0:
        return done("symbolite-inspect-fails", p.stderr.strip())
    inspected = json.loads(p.stdout)
    missing = inspected["missing_operators"] or []
    rec["missing_operators"] = missing
    rec["operators"] = sorted({op for m in inspected["methods"] for op in m.get("operator_names", [])})
    # A model naming operators symbolite lacks still runs where it does not reach them
    # (scripted library code has branches a run never takes): run it, and count it as missing
    # operators only when the run reaches one.

    out = os.path.join(directory, "out")
    cmd = [binary, "run", path, "--input", *files, "--output-dir", out, "--json", "--timeout", str(RUN_TIMEOUT)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT * 2)
    except subprocess.TimeoutExpired:
        rec["symbolite_runs"] = False
        return done("symbolite-error", f"no answer in {RUN_TIMEOUT * 2} s")
    rec["symbolite_runs"] = p.returncode == 0
    if p.returncode != 0:
        if missing and "is not implemented by symbolite" in p.stderr:
            if want is None:  # PyTorch fails as well: not symbolite's to answer for
                return done("pytorch-lite-fails", f"symbolite reaches a missing operator; PyTorch lite: {lite_error}")
            return done("missing-operators")
        if p.returncode == 1 and want is None and lite_error and ": " in lite_error:
            # Both raise (a model's own `raise` or `assert`): the same message is a match.
            message = first_line(lite_error.split(": ", 1)[1])
            if message and message in first_line(p.stderr):
                rec["match"] = True
                return done("ok")
        stage = "symbolite-crash" if p.returncode < 0 or p.returncode > 2 else "symbolite-error"
        return done(stage, f"exit {p.returncode}: {p.stderr.strip()}")
    if want is None:
        return done("pytorch-lite-fails", f"symbolite runs; PyTorch lite: {lite_error}")
    try:
        with open(os.path.join(out, "result.json")) as f:
            got = decode(json.load(f), out)
        diff = compare(want, got)
    except Exception as e:  # noqa: BLE001 (an unreadable result is a finding too)
        diff = f"cannot read symbolite's result: {type(e).__name__}: {e}"
    rec["match"] = diff is None
    return done("ok" if diff is None else "mismatch", diff)


# ---------------------------------------------------------------------------------------------
# Reports.

def yes(value):
    return "-" if value is None else ("yes" if value else "no")


def row(rec):
    missing = rec["missing_operators"]
    return [rec["name"], yes(rec["scripts"]), yes(rec["saves"]), yes(rec["lite_runs"]),
            "-" if missing is None else (", ".join(missing) or "none"),
            yes(rec["symbolite_runs"]), yes(rec["match"]), rec["stage"]]


HEADER = ["case", "scripts", "saves", "PyTorch lite runs", "missing operators", "symbolite runs", "match", "status"]


def print_table(records):
    for rec in records:
        r = row(rec)
        print(f"{r[7]:<22} {r[0]:<55} missing: {r[4]}" + (f"\n    {first_line(rec['error'])[:200]}"
                                                          if rec["error"] and rec["stage"] != "missing-operators" else ""))


def missing_counts(records):
    """operator -> list of case names needing it (a run reached a missing operator), sorted by
    count (then name)."""
    need = collections.defaultdict(list)
    for rec in records:
        if rec["stage"] != "missing-operators":
            continue
        for op in rec["missing_operators"] or []:
            need[op].append(rec["name"])
    return sorted(need.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def markdown(records, meta):
    md = lambda cells: "| " + " | ".join(str(x).replace("|", "\\|") for x in cells) + " |"  # noqa: E731
    stages = collections.Counter(r["stage"] for r in records)
    out = [
        "# symbolite vs PyTorch 1.13: torch.nn families and TorchScript builtins",
        "",
        f"Generated by `tests/interop/survey_nn_families.py` (cases: `tests/interop/nn_families.py`) on "
        f"{meta['date']}: torch {meta['torch']}, {meta['symbolite']}; {len(records)} cases in "
        f"{meta['seconds']:.0f} s.",
        "",
        "Statuses: " + ", ".join(f"{k} {v}" for k, v in stages.most_common()) + ".",
        "",
        "## By family",
        "",
        md(["family", "cases", "ok", "missing operators", "other failures"]),
        md(["---"] * 5),
    ]
    families = collections.OrderedDict()
    for r in records:
        families.setdefault(r["family"], []).append(r)
    for family, recs in families.items():
        ok = sum(r["stage"] == "ok" for r in recs)
        miss = sum(r["stage"] == "missing-operators" for r in recs)
        out.append(md([family, len(recs), ok, miss, len(recs) - ok - miss]))
    out += ["", "## Missing operators", "",
            "Each operator symbolite has no kernel for (`symbolite inspect`), with how many cases need it "
            "and how many it alone keeps from running (their only missing operator).", "",
            md(["operator", "cases", "alone", "which"]), md(["---"] * 4)]
    sole = collections.Counter(r["missing_operators"][0] for r in records if len(r["missing_operators"] or []) == 1)
    for op, names in missing_counts(records):
        shown = ", ".join(names[:6]) + (f", ... ({len(names) - 6} more)" if len(names) > 6 else "")
        out.append(md([f"`{op}`", len(names), sole[op], shown]))
    others = [r for r in records if r["stage"] not in ("ok", "missing-operators")]
    out += ["", "## Other failures", ""]
    if not others:
        out.append("None.")
    for r in others:
        out += [f"### {r['name']}: {r['stage']}", ""]
        if r.get("lite_note"):
            out += [f"Note: {r['lite_note']}.", ""]
        text = "\n".join(str(r["error"]).splitlines()[:40])
        out += ["```", text, "```", ""]
    out += ["", "## All cases", "", md(HEADER), md(["---"] * len(HEADER))]
    out += [md(row(r)) for r in records]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbolite", default=os.path.join(REPO, "build", "bin", "symbolite"))
    parser.add_argument("--json", help="write every case's record here")
    parser.add_argument("--markdown", help="write the report here")
    parser.add_argument("--operators", help="write, for each operator, the cases that use it and match "
                        "PyTorch (tests/interop/survey_operators.json, read by scripts/make_operators_doc.py)")
    parser.add_argument("--cases", help="comma-separated substrings of case names (default: all)")
    parser.add_argument("--keep", help="keep the models, inputs and outputs in this directory")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 unless every case PyTorch can script and save runs and matches (CI)")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch is not installed for this Python: skipped (use /usr/bin/python3)")
        return SKIP
    import nn_families
    binary = os.path.abspath(args.symbolite)
    cases = nn_families.CASES
    if args.cases:
        wanted = args.cases.split(",")
        cases = [c for c in cases if any(w in c.name for w in wanted)]
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    start = time.monotonic()
    records = []
    with tempfile.TemporaryDirectory(prefix="symbolite-nn-survey-") as tmp:
        work = os.path.abspath(args.keep) if args.keep else tmp
        os.makedirs(work, exist_ok=True)
        for c in cases:
            try:
                rec = survey_case(c, binary, work)
            except Exception as e:  # noqa: BLE001 (one case's failure must not hide the others')
                rec = dict(name=c.name, family=c.name.split("/")[0], scripts=None, saves=None, lite_runs=None,
                           missing_operators=None, symbolite_runs=None, match=None, stage="survey-error",
                           error=f"{type(e).__name__}: {e}", seconds=None)
            gap = nn_families.KNOWN_GAPS.get(c.name)
            if gap is not None and rec["stage"] not in PYTORCH_SIDE + ("ok",):
                rec["stage"], rec["error"] = "known-gap", f"{gap} ({rec['stage']})"
            records.append(rec)
            print_table([rec])
            sys.stdout.flush()
    seconds = time.monotonic() - start
    meta = dict(date=time.strftime("%Y-%m-%d"), torch=torch.__version__, symbolite=version, seconds=seconds)
    stages = collections.Counter(r["stage"] for r in records)
    print(f"\n{len(records)} cases in {seconds:.1f} s: " + ", ".join(f"{k} {v}" for k, v in stages.most_common()))
    print("\nmissing operators (cases needing each):")
    for op, names in missing_counts(records):
        print(f"  {len(names):4d}  {op}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(meta, cases=records), f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(records, meta))
    failed = [r for r in records if r["stage"] not in PYTORCH_SIDE + ("ok", "known-gap")]
    if args.strict and failed:
        print(f"\n{len(failed)} cases PyTorch runs fail in symbolite: "
              + ", ".join(r["name"] for r in failed))
        return 1
    if args.operators:
        used = collections.defaultdict(list)
        for r in records:
            if r["stage"] == "ok":
                for op in r.get("operators", []):
                    used[op].append(r["name"])
        with open(args.operators, "w") as f:
            json.dump(dict(meta, operators={op: sorted(n) for op, n in sorted(used.items())}), f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
