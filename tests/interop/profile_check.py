"""Interop check of `symbolite profile` against PyTorch 1.13's profiler on the same call.

PyTorch's lite interpreter records one event per executed OP instruction (make_profile_fixtures
has the details); symbolite's Chrome trace has one operator slice per executed operator. For
each valid call of a model, in order: the same operators, the bytecode's own arguments with
PyTorch's input shapes, and the same FLOPs wherever PyTorch counts any — except two
documented improvements: convolutions whose trailing arguments the bytecode left to their
defaults (PyTorch counts 0, with a warning; symbolite counts them), and elementwise add/mul
whose first operand broadcasts (PyTorch counts that operand's elements, symbolite the
output's).
"""
import json
import os
import subprocess
import tempfile


SHOWN = 5
PYTORCH_ATTEMPTS = 3


def numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def operator_slices(trace_path):
    with open(trace_path, encoding="utf-8") as f:
        trace = json.load(f)
    # Written in execution order (module slices are interleaved; they are left out here).
    return [e for e in trace["traceEvents"] if e.get("cat") == "operator"]


def compare(torch_events, slices):
    problems = []
    if len(torch_events) != len(slices):
        return [f"{len(slices)} operator events, PyTorch recorded {len(torch_events)}"]
    for i, (want, got) in enumerate(zip(torch_events, slices)):
        if len(problems) >= SHOWN:
            problems.append("...")
            break
        name = got["name"].split(".")[0]
        args = got["args"]
        if name != want["op"]:
            problems.append(f"event {i}: {got['name']}, PyTorch {want['op']}")
            continue
        ours, theirs = args.get("Input Dims", []), want["input_shapes"]
        # PyTorch lists the whole operand stack, the call's own arguments on top; ours are the
        # call's arguments with defaults appended: some prefix of ours is a suffix of theirs.
        if ours and not any(theirs[-m:] == ours[:m] for m in range(min(len(ours), len(theirs)), 0, -1)):
            problems.append(f"event {i} {got['name']}: inputs {ours}, PyTorch's stack {theirs}")
        if want["flops"] > 0 and args.get("flops") != want["flops"]:
            broadcast = (name in ("aten::add", "aten::mul") and args.get("Output Dims")
                         and args.get("flops") == numel(args["Output Dims"][0]))
            if not broadcast:
                problems.append(f"event {i} {got['name']}: {args.get('flops')} FLOPs, PyTorch {want['flops']}")
    return problems


def check_profile(checks, symbolite, models, golden, valid_calls, save_inputs):
    """One check per valid call of the golden's model."""
    import torch.jit.mobile
    import make_profile_fixtures  # tests/fixtures (on sys.path); imports torch

    model = os.path.join(models, golden["model"])
    loadable = model.replace(".ptl", "_repaired.ptl")
    lite = torch.jit.mobile._load_for_lite_interpreter(loadable if os.path.exists(loadable) else model)
    with tempfile.TemporaryDirectory(prefix="symbolite-profile-") as work:
        for n, (method, inputs) in enumerate(valid_calls.get(golden["model"], [])):
            directory = os.path.join(work, f"valid{n}")
            os.makedirs(directory)
            paths, args = save_inputs(directory, inputs)
            trace = os.path.join(directory, "trace.json")
            process = subprocess.run(
                [symbolite.binary, "profile", model, "--method", method, "--input", *paths,
                 "--shapes", "--flops", "--memory", "--trace", trace],
                capture_output=True, text=True, timeout=600)
            torch_events = []
            if process.returncode != 0:
                problems = [f"exit {process.returncode}: {process.stderr.strip()}"]
            else:
                slices = operator_slices(trace)
                # PyTorch's profiler now and then loses an event under load (seen: 2 runs in
                # 40 of lstm's with_state missed one aten::size), so a count mismatch is
                # profiled again before it counts as ours.
                for _ in range(PYTORCH_ATTEMPTS):
                    torch_events = make_profile_fixtures.profile_call(lite, method, list(args))
                    problems = compare(torch_events, slices)
                    if len(torch_events) == len(slices):
                        break
            counted = sum(1 for e in torch_events if e["flops"] > 0)
            checks.record(f"{golden['model']} profile {method}{inputs} ({len(torch_events)} events, "
                          f"{counted} with PyTorch FLOPs)", problems)
