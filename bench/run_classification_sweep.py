#!/usr/bin/env python3
"""Classification sweep: symbolite against PyTorch 1.13's own C++ lite interpreter
(bench/torch_peer) on every torchvision 0.14 classification model: median latency of each at
the given thread counts, the speed-up (PyTorch / symbolite) and whether their outputs agree.

  nice -n 19 /usr/bin/python3 bench/run_classification_sweep.py \\
      --symbolite build/bin/symbolite --peer build/bin/torch_peer \\
      --json /tmp/classification-sweep.json --markdown /tmp/classification-sweep.md

Options: --models a,b / --exclude a,b (subsets), --threads 1,2 (default 1 and the core count),
--runs 10, --warmup 2, --rounds 1, --timeout 600 (seconds per child process), --max-params N
(models with more parameters are listed as skipped), --cache DIR (default
/tmp/peer-classification), --list (the models and their parameter counts, nothing run),
--fma PATH (bench/fma_peak: each model's FLOPs are counted with `symbolite profile --flops`,
and each row gets both sides' share of this machine's FMA peak and the ceiling: the speed-up
symbolite would show running at the peak, peak / PyTorch's GFLOP/s).

Each model is built once into --cache, in its own child process (so a failure, an out-of-memory
kill or a hang costs that model only): torchvision's builder with weights=None, eval,
torch.jit.script, saved for the lite interpreter with debug info, plus a seeded float32 input of
1x3x224x224 (inception_v3: 299x299, the size torchvision documents for it; a model that fails at
224 gets its weights' crop size). A model PyTorch cannot script or save is reported as such and
cached that way: delete CACHE/NAME.sweep.json to try it again. The largest models need a few GB
of memory and their files about 4 bytes per parameter of disk.

Measuring reuses bench/run_peer_bench.py: outputs compared once at one thread (PyTorch's are the
reference), then per thread count --rounds interleaved rounds of `symbolite bench` and
`torch_peer`, each in its own process; a figure is the median over rounds of each round's
median. The table ends with, per thread count, how many models were measured, how many ran
slower on symbolite than on PyTorch, and the geometric mean of the speed-ups. This script needs
/usr/bin/python3 (torch and numpy), but imports torch only in its child processes.
"""
import argparse
import inspect
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_peer_bench as peer  # noqa: E402  (needs the path above)

THIS = os.path.abspath(__file__)
DEFAULT_SIZE = 224
# torchvision's inception_v3 docstring: "expects tensors with a size of N x 3 x 299 x 299" (it
# runs at 224 too, but that is not the network it is).
DOCUMENTED_SIZES = {"inception_v3": 299}
# Submodules of torchvision.models that hold other tasks' models (only for torchvision without
# list_models).
OTHER_TASKS = ("detection", "segmentation", "video", "optical_flow", "quantization")


def log(message):
    print(message, file=sys.stderr, flush=True)


def first_line(text, limit=240):
    """An error's first non-empty line; with the next one when it ends in ':' (symbolite's
    missing-operator error names the operators on the lines after its first)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()] or ["(no message)"]
    line = lines[0]
    if line.endswith(":") and len(lines) > 1:
        line += " " + lines[1]
    return line[:limit]


# --------------------------------------------------------------------------------------------
# Child processes: the only ones that import torch.

def classification_names(models):
    if hasattr(models, "list_models"):
        return models.list_models(module=models)
    # Older torchvision: the lowercase builder functions of torchvision.models' own modules.
    return sorted(name for name, f in vars(models).items()
                  if inspect.isfunction(f) and name.islower() and not name.startswith(("_", "get_"))
                  and f.__module__.startswith("torchvision.models.")
                  and f.__module__.split(".")[2] not in OTHER_TASKS)


def child_catalogue():
    """Prints {"torch", "torchvision", "models": {name: parameter count}} as JSON."""
    import torch
    import torchvision
    import torchvision.models as models

    # Counting needs the shapes only: skipping the initializers makes building all 80 models
    # take seconds (the memory they would fill is never touched).
    for name in dir(torch.nn.init):
        if name.endswith("_") and not name.startswith("_"):
            setattr(torch.nn.init, name, lambda tensor, *args, **kwargs: tensor)
    counts = {}
    for name in classification_names(models):
        module = getattr(models, name)(weights=None)
        counts[name] = sum(p.numel() for p in module.parameters())
        del module
    print(json.dumps({"torch": torch.__version__, "torchvision": torchvision.__version__, "models": counts}))


def input_size(models, module, name):
    """224, unless torchvision documents another size for the model or it fails at 224: then
    the crop size of its default weights (weights=None keeps the architecture)."""
    import torch

    if name in DOCUMENTED_SIZES:
        return DOCUMENTED_SIZES[name]
    try:
        with torch.no_grad():
            module(torch.zeros(1, 3, DEFAULT_SIZE, DEFAULT_SIZE))
        return DEFAULT_SIZE
    except Exception as error:
        size = models.get_model_weights(name).DEFAULT.transforms.keywords.get("crop_size", DEFAULT_SIZE)
        if size == DEFAULT_SIZE:
            raise
        try:
            with torch.no_grad():
                module(torch.zeros(1, 3, size, size))
        except Exception:
            raise error from None  # the 224 failure says more
        return size


def meta_path(cache, name):
    # Not NAME.json: run_peer_bench.py's zoo uses that, and both may share a cache (same
    # recipe, so the same NAME.ptl and NAME.npy for the models they have in common).
    return os.path.join(cache, name + ".sweep.json")


def child_build(cache, name):
    """Writes CACHE/NAME.sweep.json and, as far as PyTorch gets, NAME.ptl and NAME.npy; a step
    that fails is recorded in the JSON's "error" as what PyTorch cannot do."""
    import numpy
    import torch
    import torchvision
    import torchvision.models as models

    meta = {"model": name, "torch": torch.__version__, "torchvision": torchvision.__version__}
    path = os.path.join(cache, name + ".ptl")
    stage = "PyTorch cannot build it"
    try:
        torch.manual_seed(0)  # the same recipe as run_peer_bench.py: weights, then the input
        module = getattr(models, name)(weights=None).eval()
        meta["params"] = sum(p.numel() for p in module.parameters())
        stage = "PyTorch cannot run it"
        size = input_size(models, module, name)
        example = torch.randn(1, 3, size, size)
        meta["input_shape"] = list(example.shape)
        numpy.save(os.path.join(cache, name + ".npy"), example.numpy())
        stage = "PyTorch cannot export"
        torch.jit.script(module)._c._save_for_mobile(path, {}, True)
        meta["path"] = path
        stage = "PyTorch cannot load its own file"
        meta["peer_path"], meta["note"] = peer.peer_copy(cache, name, path)
    except Exception as error:
        meta["error"] = f"{stage}: {first_line(str(error) or type(error).__name__)}"
    with open(meta_path(cache, name), "w") as f:
        json.dump(meta, f, indent=1)


# --------------------------------------------------------------------------------------------
# The parent: runs the children and the two runtimes, and writes the table.

def catalogue():
    # Seconds of work, whatever --timeout says (it is for the models).
    done = subprocess.run([sys.executable, THIS, "--catalogue"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"listing the models failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout)


def select(parser, args, counts):
    """The models to sweep, in torchvision's (alphabetical) order."""
    wanted = args.models.split(",") if args.models else list(counts)
    excluded = args.exclude.split(",") if args.exclude else []
    for name in wanted + excluded:
        if name not in counts:
            parser.error(f"unknown model {name!r}; --list shows the {len(counts)} known")
    return [name for name in wanted if name not in excluded]


def too_large(args, params):
    return args.max_params is not None and params > args.max_params


def print_list(args, listing, names):
    counts = listing["models"]
    print(f"{len(names)} classification models (torchvision {listing['torchvision']}, torch {listing['torch']}):")
    for name in names:
        mark = "  (skipped: more than --max-params)" if too_large(args, counts[name]) else ""
        print(f"  {name:22} {counts[name] / 1e6:8.1f} M parameters{mark}")
    total = sum(counts[name] for name in names)
    print(f"{total / 1e6:.0f} M parameters in all (about {total * 4 / 2**30:.1f} GiB of .ptl files)")


def ensure_built(args, name):
    """The model's build record, building it first in a child unless --cache has it. A child
    that times out or dies is not cached, so a rerun tries again."""
    path = meta_path(args.cache, name)
    if not os.path.exists(path):
        start = time.time()
        try:
            done = subprocess.run([sys.executable, THIS, "--build-model", args.cache, name],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"building it timed out after {args.timeout:.0f} s"}
        if done.returncode != 0:
            killed = " (killed: out of memory?)" if done.returncode == -9 else ""
            last = done.stderr.strip().splitlines()[-1:] or [""]
            return {"error": f"building it failed, exit code {done.returncode}{killed}: {last[0][:200]}"}
        log(f"  built in {time.time() - start:.0f} s")
    with open(path) as f:
        return json.load(f)


def describe_failure(args, error):
    """'symbolite: ...' or 'PyTorch: ...' and the first line of what the failed process said."""
    cmd = getattr(error, "cmd", None) or ["?"]
    who = {args.symbolite: "symbolite", args.peer: "PyTorch"}.get(cmd[0], os.path.basename(cmd[0]))
    if isinstance(error, subprocess.TimeoutExpired):
        return f"{who} timed out after {error.timeout:.0f} s"
    line = first_line("\n".join(peer.error_lines(error)))
    for prefix in ("symbolite: ", "torch_peer: "):  # the programs name themselves
        line = line.removeprefix(prefix)
    return f"{who}: {line.replace(args.cache + os.sep, '')}"


def measure(args, entry, meta, thread_counts, work):
    """Compares the outputs, then times each thread count; a failure ends the model's rows."""
    image = os.path.join(args.cache, entry["model"] + ".npy")
    try:
        entry["check"] = peer.compare_outputs(args, meta, image, work)
        if args.peaks:
            entry["flops"], entry["uncounted_ops"] = peer.total_flops(args, meta["path"], image)
        for threads in thread_counts:
            row = peer.measure_model(args, meta, image, threads)
            if entry.get("flops"):
                add_peak_shares(args, row, entry["flops"])
            entry["rows"].append(row)
            log(f"  x{threads}: symbolite {row['symbolite']['median_ms']:.2f} ms, "
                f"PyTorch {row['pytorch']['median_ms']:.2f} ms, speed-up {row['speedup']:.2f}x")
    except (RuntimeError, ValueError, subprocess.SubprocessError) as error:
        entry["error"] = describe_failure(args, error)
        log(f"  {entry['error']}")


def add_peak_shares(args, row, flops):
    """Each side's GFLOP/s and share of the FMA peak at the row's thread count, and the
    ceiling: the speed-up symbolite would show at the peak (peak / PyTorch's GFLOP/s)."""
    row["peak_gflops"] = args.peaks.get(row["threads"], args.peaks[1] * row["threads"])
    for side in ("symbolite", "pytorch"):
        gflops = flops / (row[side]["median_ms"] / 1e3) / 1e9
        row[side]["gflops"] = gflops
        row[side]["fraction_of_peak"] = gflops / row["peak_gflops"]
    row["ceiling"] = row["peak_gflops"] / row["pytorch"]["gflops"]


def sweep_model(args, name, params, thread_counts, work):
    entry = {"model": name, "params": params, "rows": []}
    if too_large(args, params):
        entry["skipped"] = f"skipped: {params / 1e6:.1f} M parameters"
        log(f"  {entry['skipped']}")
        return entry
    meta = ensure_built(args, name)
    entry.update({key: meta[key] for key in ("input_shape", "path", "peer_path", "note") if meta.get(key)})
    if meta.get("error"):
        entry["error"] = meta["error"]
        log(f"  {entry['error']}")
        return entry
    model_work = os.path.join(work, name)
    os.makedirs(model_work)
    measure(args, entry, meta, thread_counts, model_work)
    shutil.rmtree(model_work, ignore_errors=True)
    return entry


# --------------------------------------------------------------------------------------------
# The table.

def cell(text):
    return str(text).replace("|", "\\|")


def agreement(check):
    if check["what"] is None:
        return f"agree ({check['max_rel_diff']:.1e})"
    return f"**MISMATCH**: {cell(check['what'])}"


def peak_cells(row):
    """The --fma columns: GFLOP, both sides' share of the peak, the ceiling."""
    if "ceiling" not in row:
        return " - | - | - | - |"
    s, p = row["symbolite"], row["pytorch"]
    gflop = s["gflops"] * s["median_ms"] / 1e3
    return (f" {gflop:.2f} | {100 * s['fraction_of_peak']:.0f} % | {100 * p['fraction_of_peak']:.0f} % | "
            f"{row['ceiling']:.2f}x |")


def model_lines(args, entry):
    params = f"{entry['params'] / 1e6:.1f}"
    peaks = peak_cells if args.peaks else (lambda row: "")
    lines = []
    for row in entry["rows"]:
        s, p = row["symbolite"], row["pytorch"]
        lines.append(f"| {entry['model']} | {params} | {row['threads']} | {s['median_ms']:.2f} | "
                     f"{p['median_ms']:.2f} | {peer.speedup_cell(row)} |{peaks(row)} {agreement(entry['check'])} |")
    problem = entry.get("skipped") or entry.get("error")
    if problem:
        dashes = " - | - | - | - |" if args.peaks else ""
        lines.append(f"| {entry['model']} | {params} | - | - | - | - |{dashes} {cell(problem)} |")
    return lines


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def summary_lines(args, entries, thread_counts):
    extra = " geometric mean ceiling |" if args.peaks else ""
    lines = ["| threads | models measured | slower than PyTorch | outputs disagree | geometric mean speed-up |" + extra,
             "|---:|---:|---:|---:|---:|" + ("---:|" if args.peaks else "")]
    for threads in thread_counts:
        rows = [(e, row) for e in entries for row in e["rows"] if row["threads"] == threads]
        ups = [row["speedup"] for _, row in rows]
        disagree = sum(1 for e, _ in rows if e["check"]["what"] is not None)
        line = (f"| {threads} | {len(rows)} | {sum(1 for u in ups if u < 1)} | {disagree} | "
                f"{f'{geometric_mean(ups):.2f}x' if ups else '-'} |")
        if args.peaks:
            ceilings = [row["ceiling"] for _, row in rows if "ceiling" in row]
            line += f" {f'{geometric_mean(ceilings):.2f}x' if ceilings else '-'} |"
        lines.append(line)
    return lines


def note_lines(entries):
    skipped = [e["model"] for e in entries if e.get("skipped")]
    failed = [e["model"] for e in entries if e.get("error")]
    notes = [f"{e['model']}: input {'x'.join(map(str, e['input_shape']))}" for e in entries
             if e.get("input_shape", [0, 0, DEFAULT_SIZE])[2] != DEFAULT_SIZE]
    notes += [e["note"] for e in entries if e.get("note")]
    if skipped:
        notes.append(f"Not measured, more parameters than --max-params: {', '.join(skipped)}")
    if failed:
        notes.append(f"Failed (reason in the table): {', '.join(failed)}")
    return [f"- {note}" for note in notes]


def report(args, entries, thread_counts, about):
    peak_heads = " GFLOP | symbolite of peak | PyTorch of peak | ceiling |" if args.peaks else ""
    lines = [about, "",
             "| model | params (M) | threads | symbolite (ms) | PyTorch (ms) | speed-up |" + peak_heads +
             " outputs agree (max rel. diff) |",
             "|---|---:|---:|---:|---:|---:|" + ("---:|" * 4 if args.peaks else "") + "---|"]
    for entry in entries:
        lines += model_lines(args, entry)
    lines += [""] + summary_lines(args, entries, thread_counts)
    notes = note_lines(entries)
    if notes:
        lines += [""] + notes
    return "\n".join(lines) + "\n"


def save(args, entries, thread_counts, about, listing):
    """Writes --json and --markdown (after every model too, so an interrupted sweep keeps what
    it measured)."""
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report(args, entries, thread_counts, about))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"schema_version": 1, "about": about, "torch": listing["torch"],
                       "torchvision": listing["torchvision"], "runs": args.runs, "warmup": args.warmup,
                       "rounds": args.rounds, "threads": thread_counts, "tolerance": peer.TOLERANCE,
                       "max_params": args.max_params, "fma_peak": args.fma_peak, "models": entries},
                      f, indent=1)


# --------------------------------------------------------------------------------------------

def describe_run(args, listing, cores, start, load_before, total, done=None):
    progress = f" (partial: {done} of {total} models)" if done is not None and done < total else ""
    return (f"symbolite vs PyTorch {listing['torch']}'s lite interpreter on torchvision {listing['torchvision']} "
            f"classification models{progress}: {args.rounds} interleaved round(s) of {args.warmup} warm-up + "
            f"{args.runs} timed runs per side; figures are medians over rounds; speed-up is PyTorch / symbolite "
            f"(above 1: symbolite is faster), the median of the rounds' own, in brackets their lowest and "
            f"highest. Outputs compared at one thread, PyTorch's the reference "
            f"(tolerance {peer.TOLERANCE} x its largest magnitude). Load average {load_before:.2f} before, "
            f"{os.getloadavg()[0]:.2f} after on {cores} hardware threads; {time.time() - start:.0f} s in all.")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbolite", default=os.path.join(peer.ROOT, "build", "bin", "symbolite"))
    parser.add_argument("--peer", default=os.path.join(peer.ROOT, "build", "bin", "torch_peer"))
    parser.add_argument("--models", help="comma-separated subset (default: every classification model)")
    parser.add_argument("--exclude", help="comma-separated models to leave out")
    parser.add_argument("--threads", help="thread counts, comma-separated (default: 1 and the core count)")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per process")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs per process first")
    parser.add_argument("--rounds", type=int, default=1, help="interleaved repeats of each pair")
    parser.add_argument("--timeout", type=float, default=600, help="seconds any one child process may take")
    parser.add_argument("--max-params", type=lambda text: int(float(text)),
                        help="skip models with more parameters than this (e.g. 1e8)")
    parser.add_argument("--cache", default="/tmp/peer-classification",
                        help="where the models are built (reused when already there)")
    parser.add_argument("--json", help="write every figure here")
    parser.add_argument("--markdown", help="write the table here")
    parser.add_argument("--list", action="store_true", help="list the models and their parameter counts")
    parser.add_argument("--fma", help="bench/fma_peak: add GFLOP, each side's share of the FMA peak and "
                        "the ceiling (peak / PyTorch's GFLOP/s) to every row")
    return parser, parser.parse_args()


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--build-model":
        child_build(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1:] == ["--catalogue"]:
        child_catalogue()
        return
    parser, args = parse_args()
    args.cache = os.path.abspath(args.cache)
    listing = catalogue()
    names = select(parser, args, listing["models"])
    if args.list:
        print_list(args, listing, names)
        return
    cores = os.cpu_count() or 1
    thread_counts = [int(t) for t in args.threads.split(",")] if args.threads else sorted({1, cores})
    os.makedirs(args.cache, exist_ok=True)
    args.fma_peak, args.peaks = None, None
    if args.fma:
        args.fma_peak = peer.run_json([args.fma, "--json"])
        args.peaks = {1: args.fma_peak["gflops_1_thread"],
                      args.fma_peak["threads_all"]: args.fma_peak["gflops_all_threads"]}

    start, load_before = time.time(), os.getloadavg()[0]
    entries = []
    work = tempfile.mkdtemp(prefix="symbolite-sweep-")
    try:
        for i, name in enumerate(names, 1):
            log(f"[{i}/{len(names)}] {name} ({listing['models'][name] / 1e6:.1f} M parameters)")
            entries.append(sweep_model(args, name, listing["models"][name], thread_counts, work))
            about = describe_run(args, listing, cores, start, load_before, len(names), i)
            save(args, entries, thread_counts, about, listing)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(report(args, entries, thread_counts, describe_run(args, listing, cores, start, load_before, len(names))),
          end="")


if __name__ == "__main__":
    main()
