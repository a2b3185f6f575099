#!/usr/bin/env python3
"""Peer benchmark: symbolite against PyTorch 1.13's own C++ lite interpreter (bench/torch_peer,
libtorch's torch::jit::_load_for_mobile) on the same .ptl files, at one thread and at one thread
per core: median latency, load time, peak RSS, and the GFLOP/s symbolite reaches as a share of
this machine's measured peak (bench/fma_peak).

  /usr/bin/python3 bench/run_peer_bench.py --symbolite build/bin/symbolite \\
      --peer build-peer/bin/torch_peer --fma build-peer/bin/fma_peak \\
      [--models a,b] [--runs 20] [--warmup 3] [--rounds 3] [--cache DIR] [--json PATH]

The zoo is built once into --cache (torchvision 0.14 models with weights=None, eval,
torch.jit.script, saved for the lite interpreter with debug info; an LSTM, a GRU and a
transformer encoder layer; a seeded float32 input per model). Each model and thread count is
measured in --rounds interleaved rounds (symbolite then PyTorch, then the other way round, each in its own
process); a figure is the median over rounds of each round's figure (median of medians), and
a speed-up the median of the rounds' own speed-ups.
Outputs are compared once per model: a mismatch (a tensor differing by more than 1e-4 x the
reference's largest magnitude, or a different count or shape) is marked in the table.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TORCHVISION = ["mobilenet_v3_small", "shufflenet_v2_x0_5", "squeezenet1_1", "mnasnet0_5", "resnet18",
               "efficientnet_b0", "mobilenet_v2"]
OTHERS = ["lstm", "gru", "transformer_encoder"]
MODELS = TORCHVISION + OTHERS
# The lstm model's aten::lstm, which the profiler has no formula for: per time step and layer,
# the gates' products x @ W_ih^T and h @ W_hh^T, 2 x 4H x (I + H) FLOPs (T = 50; layers 64->128
# and 128->128); the elementwise gate arithmetic is left out, as elsewhere.
LSTM_FLOPS = 50 * (2 * 4 * 128 * (64 + 128) + 2 * 4 * 128 * (128 + 128))
# The same for the gru model's aten::gru: three gates instead of four.
GRU_FLOPS = 50 * (2 * 3 * 128 * (64 + 128) + 2 * 3 * 128 * (128 + 128))
# Operators the profiler has no formula for, with the FLOPs counted above.
HAND_COUNTED = {"lstm": ("aten::lstm.input", LSTM_FLOPS), "gru": ("aten::gru.input", GRU_FLOPS)}
TOLERANCE = 1e-4  # relative to the reference's largest magnitude


# --------------------------------------------------------------------------------------------
# The zoo (built in a child process, so this one never imports torch).

def lstm_model():
    """nn.LSTM(64, 128, 2) behind a forward that takes one tensor. Scripted bare, nn.LSTM keeps
    its PackedSequence overload, whose NamedTuple type PyTorch 1.13's lite interpreter cannot
    parse at load ("Error when parsing type __torch__.torch.nn.utils.rnn.PackedSequence...")."""
    import torch

    class Lstm(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(64, 128, 2)

        def forward(self, x):
            out, (h, c) = self.lstm(x)
            return out, h, c

    return Lstm()


def gru_model():
    """nn.GRU(64, 128, 2) behind a forward that takes one tensor (as lstm_model, for the same
    reason)."""
    import torch

    class Gru(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = torch.nn.GRU(64, 128, 2)

        def forward(self, x):
            out, h = self.gru(x)
            return out, h

    return Gru()


def encoder_model():
    """nn.TransformerEncoderLayer(256, 8)'s own modules (same weights) run the way its forward
    runs them in eval mode when the fused fast path is not taken (post-norm, ReLU, dropout off).
    Scripted as is, the layer's bytecode holds the fast path's aten::_transformer_encoder_layer_fwd,
    which symbolite does not implement, so symbolite refuses it at load."""
    import torch

    class Encoder(torch.nn.Module):
        def __init__(self, layer):
            super().__init__()
            self.self_attn = layer.self_attn
            self.linear1 = layer.linear1
            self.linear2 = layer.linear2
            self.norm1 = layer.norm1
            self.norm2 = layer.norm2

        def forward(self, x):
            x = self.norm1(x + self.self_attn(x, x, x, need_weights=False)[0])
            return self.norm2(x + self.linear2(torch.relu(self.linear1(x))))

    layer = torch.nn.TransformerEncoderLayer(256, 8).eval()
    encoder = Encoder(layer).eval()
    with torch.no_grad():
        x = torch.randn(50, 1, 256)
        assert torch.allclose(encoder(x), layer(x), atol=1e-5), "the encoder differs from the layer"
    return encoder


def peer_copy(cache, name, path):
    """(the file PyTorch loads, a note saying why it is not PATH or None). PyTorch 1.13 refuses
    some of its own files (efficientnet_b0: callstack_debug_map rows with source-range tag -1;
    docs/CLI.md, `check`). It then runs a copy without those rows: the same code and weights.
    Raises when PyTorch refuses the copy too."""
    import torch.jit.mobile

    try:
        torch.jit.mobile._load_for_lite_interpreter(path)
        return path, None
    except RuntimeError as error:
        sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
        from generate import drop_minus_one_rows

        peer_path = os.path.join(cache, name + "_repaired.ptl")
        drop_minus_one_rows(path, peer_path)
        torch.jit.mobile._load_for_lite_interpreter(peer_path)
        note = (f"PyTorch refuses {name}.ptl ({str(error).splitlines()[0][:80]}); "
                f"it runs {os.path.basename(peer_path)}")
        return peer_path, note


def build_model(cache, name):
    """Writes CACHE/NAME.ptl, CACHE/NAME.npy and CACHE/NAME.json (which file PyTorch loads)."""
    import numpy
    import torch

    torch.manual_seed(0)
    if name in TORCHVISION:
        import torchvision

        module = getattr(torchvision.models, name)(weights=None)
        example = torch.randn(1, 3, 224, 224)
        about = "torchvision 0.14, weights=None; input 1x3x224x224"
    elif name == "lstm":
        module = lstm_model()
        example = torch.randn(50, 1, 64)
        about = "nn.LSTM(64, 128, 2) in a wrapper; input [T=50, B=1, 64]; outputs (out, h, c)"
    elif name == "gru":
        module = gru_model()
        example = torch.randn(50, 1, 64)
        about = "nn.GRU(64, 128, 2) in a wrapper; input [T=50, B=1, 64]; outputs (out, h)"
    elif name == "transformer_encoder":
        module = encoder_model()
        example = torch.randn(50, 1, 256)
        about = ("nn.TransformerEncoderLayer(256, 8)'s modules run as its eval-mode slow path; "
                 "input [S=50, B=1, 256]")
    else:
        raise SystemExit(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    scripted = torch.jit.script(module.eval())
    path = os.path.join(cache, name + ".ptl")
    scripted._c._save_for_mobile(path, {}, True)
    numpy.save(os.path.join(cache, name + ".npy"), example.numpy())

    peer_path, note = peer_copy(cache, name, path)
    with open(os.path.join(cache, name + ".json"), "w") as f:
        json.dump({"model": name, "about": about, "path": path, "peer_path": peer_path, "note": note,
                   "torch": torch.__version__}, f, indent=1)


def ensure_zoo(cache, names):
    os.makedirs(cache, exist_ok=True)
    for name in names:
        if not os.path.exists(os.path.join(cache, name + ".json")):
            print(f"building {name} into {cache}", file=sys.stderr)
            subprocess.run([sys.executable, os.path.abspath(__file__), "--build-model", cache, name], check=True,
                           stdout=subprocess.DEVNULL)
    metas = {}
    for name in names:
        with open(os.path.join(cache, name + ".json")) as f:
            metas[name] = json.load(f)
    return metas


# --------------------------------------------------------------------------------------------
# Measuring.

TIMEOUT = 1800  # seconds a child process may take


def timeout_of(args):
    """The per-process limit: args.timeout where a caller has one (run_classification_sweep.py)."""
    return getattr(args, "timeout", None) or TIMEOUT


class CommandError(RuntimeError):
    """A child that exited with an error; cmd says which."""

    def __init__(self, message, cmd):
        super().__init__(message)
        self.cmd = cmd


def run_json(cmd, timeout=TIMEOUT):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        print(f"failed ({done.returncode}): {' '.join(cmd)}", file=sys.stderr)
        raise CommandError(done.stderr.strip() or f"{os.path.basename(cmd[0])} exit code {done.returncode}",
                           cmd)
    return json.loads(done.stdout)


def symbolite_bench(args, model, image, threads):
    return run_json([args.symbolite, "bench", model, "--input", image, "--runs", str(args.runs),
                     "--warmup", str(args.warmup), "--threads", str(threads), "--json"],
                    timeout_of(args))


def peer_bench(args, model, image, threads, output=None):
    cmd = [args.peer, model, image, "--runs", str(args.runs), "--warmup", str(args.warmup),
           "--threads", str(threads)]
    if output:
        cmd += ["--output", output]
    return run_json(cmd, timeout_of(args))


def total_flops(args, model, image):
    """(FLOPs of one run, the sum over operators of `symbolite profile --flops`; the operators
    that have no formula, which count 0)."""
    profile = run_json([args.symbolite, "profile", model, "--input", image, "--flops", "--json",
                        "--runs", "1", "--warmup", "0", "--threads", "1"], timeout_of(args))
    flops = sum(op["flops"] or 0 for op in profile["operators"])
    uncounted = sorted({op["op"] for op in profile["operators"] if op["flops"] is None})
    return flops, uncounted


def compare_outputs(args, meta, image, work):
    """{"what": None when the outputs agree, else what differs; "max_rel_diff": the largest
    max |out - ref| / max |ref| over the outputs}. PyTorch's output is the reference; both run on
    one thread."""
    import numpy

    sym_dir = os.path.join(work, "symbolite")
    subprocess.run([args.symbolite, "run", meta["path"], "--input", image, "--output-dir", sym_dir,
                    "--threads", "1"],
                   check=True, capture_output=True, timeout=timeout_of(args))
    peer_out = os.path.join(work, "peer.npy")
    subprocess.run([args.peer, meta["peer_path"], image, "--runs", "1", "--warmup", "0", "--threads", "1",
                    "--output", peer_out], check=True, capture_output=True, timeout=timeout_of(args))
    refs = []
    i = 0
    while True:
        p = peer_out if i == 0 else os.path.join(work, f"peer_{i}.npy")
        if not os.path.exists(p):
            break
        refs.append(numpy.load(p))
        i += 1
    outs = []
    while os.path.exists(os.path.join(sym_dir, f"output_{len(outs)}.npy")):
        outs.append(numpy.load(os.path.join(sym_dir, f"output_{len(outs)}.npy")))
    if len(outs) != len(refs):
        return {"what": f"{len(outs)} outputs vs PyTorch's {len(refs)}"}
    worst = 0.0
    for k, (out, ref) in enumerate(zip(outs, refs)):
        if out.shape != ref.shape:
            return {"what": f"output {k}: shape {list(out.shape)} vs PyTorch's {list(ref.shape)}"}
        diff = float(numpy.max(numpy.abs(out.astype(numpy.float64) - ref))) if ref.size else 0.0
        scale = float(numpy.max(numpy.abs(ref))) if ref.size else 0.0
        rel = diff / scale if scale else diff
        worst = max(worst, rel)
        if not diff <= TOLERANCE * scale:  # also catches NaN
            return {"what": f"output {k}: max abs diff {diff:.3g} > {TOLERANCE} x max |ref| {scale:.3g}",
                    "max_rel_diff": rel}
    return {"what": None, "max_rel_diff": worst, "outputs": len(refs)}


def error_lines(error):
    """A failed child's stderr (or the exception's text) as stripped lines."""
    detail = getattr(error, "stderr", None) or str(error)
    detail = detail.decode() if isinstance(detail, bytes) else detail
    return [line.strip() for line in detail.strip().splitlines()] or [repr(error)]


def error_summary(error):
    lines = error_lines(error)
    return (lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}")[:300]


def speedup_cell(row):
    """The speed-up, and with more than one round the lowest and highest of the rounds' own."""
    ups = row.get("round_speedups", [])
    spread = f" ({min(ups):.2f}-{max(ups):.2f})" if len(ups) > 1 else ""
    return f"{row['speedup']:.2f}x{spread}"


def measure_model(args, meta, image, threads):
    rounds = {"symbolite": [], "pytorch": []}
    for r in range(args.rounds):
        sides = ["symbolite", "pytorch"] if r % 2 == 0 else ["pytorch", "symbolite"]
        for side in sides:
            if side == "symbolite":
                rounds[side].append(symbolite_bench(args, meta["path"], image, threads))
            else:
                rounds[side].append(peer_bench(args, meta["peer_path"], image, threads))
    row = {"threads": threads}
    for side, results in rounds.items():
        row[side] = {key: statistics.median(res[key] for res in results)
                     for key in ("median_ms", "min_ms", "p90_ms", "load_ms", "peak_rss_mib")}
        row[side]["round_medians_ms"] = [res["median_ms"] for res in results]
        if "rss_before_load_mib" in results[0]:  # the peer: libtorch's own share of the peak
            row[side]["rss_before_load_mib"] = statistics.median(res["rss_before_load_mib"] for res in results)
            row[side]["default_intra_op_threads"] = results[0]["default_intra_op_threads"]
        row[side]["reported_threads"] = results[0].get("intra_op_threads", results[0]["threads"])
    s, p = row["symbolite"], row["pytorch"]
    # Each round's own speed-up (its two medians, measured seconds apart): the speed-up is
    # their median, so a drift of the machine's speed over the rounds (this VM's moves by
    # tens of percent between hours) cancels within each pair; their spread is how far the
    # noise moves the figure.
    row["round_speedups"] = [pr["median_ms"] / sr["median_ms"]
                             for sr, pr in zip(rounds["symbolite"], rounds["pytorch"])]
    row["speedup"] = statistics.median(row["round_speedups"])
    row["load_ratio"] = p["load_ms"] / s["load_ms"]
    row["rss_ratio"] = p["peak_rss_mib"] / s["peak_rss_mib"]
    if meta.get("flops"):
        for side in ("symbolite", "pytorch"):
            row[side]["gflops"] = meta["flops"] / (row[side]["median_ms"] / 1e3) / 1e9
    return row


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--build-model":
        build_model(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbolite", default=os.path.join(ROOT, "build", "bin", "symbolite"))
    parser.add_argument("--peer", default=os.path.join(ROOT, "build-peer", "bin", "torch_peer"))
    parser.add_argument("--fma", default=os.path.join(ROOT, "build-peer", "bin", "fma_peak"))
    parser.add_argument("--models", help=f"comma-separated subset of {','.join(MODELS)}")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per process")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs per process first")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved repeats of each pair")
    parser.add_argument("--threads", help="thread counts, comma-separated (default: 1 and the core count)")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "symbolite-peer-zoo"),
                        help="where the zoo is built (reused when already there)")
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args()

    names = args.models.split(",") if args.models else MODELS
    for name in names:
        if name not in MODELS:
            parser.error(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    cores = os.cpu_count() or 1
    thread_counts = [int(t) for t in args.threads.split(",")] if args.threads else sorted({1, cores})

    # The peak is what the machine can reach: the best of a measurement before the models and
    # one after (other load on the machine only ever lowers it).
    fma = run_json([args.fma, "--json"])
    load_before = os.getloadavg()

    metas = ensure_zoo(args.cache, names)
    results = []
    work = tempfile.mkdtemp(prefix="symbolite-peer-")
    try:
        for name in names:
            meta = metas[name]
            image = os.path.join(args.cache, name + ".npy")
            try:
                meta["flops"], meta["uncounted_ops"] = total_flops(args, meta["path"], image)
                meta["flops_source"] = "symbolite profile --flops"
                op, flops = HAND_COUNTED.get(name, (None, 0))
                if op in meta["uncounted_ops"]:
                    # The profiler has no formula for the recurrent layers: their gate
                    # products are counted here.
                    meta["flops"] += flops
                    meta["uncounted_ops"].remove(op)
                    meta["flops_source"] += f" + {op.split('.')[0]}'s gate products counted by hand"
                model_work = os.path.join(work, name)
                os.makedirs(model_work)
                meta["check"] = compare_outputs(args, meta, image, model_work)
                for threads in thread_counts:
                    row = measure_model(args, meta, image, threads)
                    row["model"] = name
                    results.append(row)
                    print(f"{name} x{threads}: symbolite {row['symbolite']['median_ms']:.2f} ms, "
                          f"PyTorch {row['pytorch']['median_ms']:.2f} ms", file=sys.stderr)
            except (RuntimeError, subprocess.SubprocessError) as error:
                meta["error"] = error_summary(error)
                print(f"{name}: {meta['error']}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    fma_after = run_json([args.fma, "--json"])
    fma["measurements"] = [dict(fma), fma_after]
    for key in ("gflops_1_thread", "gflops_all_threads"):
        fma[key] = max(fma[key], fma_after[key])
    peaks = {1: fma["gflops_1_thread"], fma["threads_all"]: fma["gflops_all_threads"]}
    for row in results:  # GFLOP/s as a share of the peak at the row's thread count
        if "gflops" in row["symbolite"]:
            row["peak_gflops"] = peaks.get(row["threads"], peaks[1] * row["threads"])
            row["symbolite"]["fraction_of_peak"] = row["symbolite"]["gflops"] / row["peak_gflops"]

    print(f"Peak float32 FMA throughput ({fma['isa']}): {fma['gflops_1_thread']:.1f} GFLOP/s on 1 thread, "
          f"{fma['gflops_all_threads']:.1f} GFLOP/s on {fma['threads_all']}. {args.rounds} interleaved rounds of "
          f"{args.warmup} warm-up + {args.runs} timed runs per side; figures are medians over rounds, a "
          f"speed-up the median of the rounds' own; in brackets after it, the lowest and highest of them. "
          f"Ratios are PyTorch / symbolite (above 1: symbolite is faster or smaller). Load average "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after on {cores} hardware threads (other work on the "
          f"machine slows the all-core rows most, PyTorch's OpenMP ones by far the most).")
    print()
    print("| model | threads | symbolite (ms) | PyTorch (ms) | speed-up | symbolite load (ms) | PyTorch load (ms) "
          "| load ratio | symbolite RSS (MiB) | PyTorch RSS (MiB) | RSS ratio | GFLOP | symbolite GFLOP/s "
          "| of peak | outputs (max rel. diff) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for row in results:
        meta = metas[row["model"]]
        s, p = row["symbolite"], row["pytorch"]
        check = meta["check"]
        agree = (f"agree ({check['max_rel_diff']:.1e})" if check["what"] is None
                 else f"**MISMATCH**: {check['what']}")
        gf = f"{meta['flops'] / 1e9:.3f}" if meta["flops"] else "-"
        rate = f"{s['gflops']:.1f}" if "gflops" in s else "-"
        share = f"{100 * s['fraction_of_peak']:.1f}%" if "fraction_of_peak" in s else "-"
        print(f"| {row['model']} | {row['threads']} | {s['median_ms']:.2f} | {p['median_ms']:.2f} | "
              f"{speedup_cell(row)} | {s['load_ms']:.1f} | {p['load_ms']:.1f} | {row['load_ratio']:.2f}x | "
              f"{s['peak_rss_mib']:.0f} | {p['peak_rss_mib']:.0f} | {row['rss_ratio']:.2f}x | {gf} | {rate} | "
              f"{share} | {agree} |")
    for name, meta in metas.items():
        if meta.get("error"):
            print(f"| {name} | - | - | - | - | - | - | - | - | - | - | - | - | - | **FAILED**: {meta['error']} |")
    notes = [m["note"] for m in metas.values() if m.get("note")]
    notes.append("GFLOP: the operators symbolite's profiler has a formula for (convolutions, linear, the "
                 "matmul family, elementwise add/sub/mul/div; symbolite/profiler/flops.h); the others "
                 "count 0 and are listed per model in the JSON (`uncounted_ops`)")
    notes += [f"{n}: FLOPs from {m['flops_source']}" for n, m in metas.items()
              if "by hand" in m.get("flops_source", "")]
    base = [row["pytorch"]["rss_before_load_mib"] for row in results if "rss_before_load_mib" in row["pytorch"]]
    if base:
        notes.append(f"PyTorch's RSS before it loads a model (libtorch alone): {statistics.median(base):.0f} MiB")
    defaults = {row["pytorch"]["default_intra_op_threads"] for row in results
                if "default_intra_op_threads" in row["pytorch"]}
    if defaults:
        notes.append(f"Left to itself, libtorch would use {', '.join(map(str, sorted(defaults)))} intra-op "
                     f"thread(s) here ({cores} hardware threads); the peer sets at::set_num_threads(T)")
    if notes:
        print()
        for note in notes:
            print(f"- {note}")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"schema_version": 1, "fma_peak": fma, "load_average": [load_before, load_after],
                       "runs": args.runs, "warmup": args.warmup,
                       "rounds": args.rounds, "threads": thread_counts, "tolerance": TOLERANCE,
                       "models": metas, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
