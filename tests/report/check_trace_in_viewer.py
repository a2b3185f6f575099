#!/usr/bin/env python3
"""Opens `symbolite profile --trace` output in a real trace viewer: speedscope (fetched from
npm by scripts/install-deps.sh test into .deps/) in headless Chromium (Debian's `chromium`),
served from a local HTTP server (offline). Perfetto's UI and trace processor are in neither
Debian nor npm, and Chromium 156 has no chrome://tracing; speedscope reads Chrome's trace
event format the same way (complete "X" events nested by time per thread, process and thread
names from "M" events).

Checks, against the trace's own numbers:
- the page loads without console errors or failed requests and names the profile after the
  process and thread names the trace declares;
- speedscope's sandwich table (total and self time per frame) lists every slice of the trace
  with the total and self time the trace implies: slices nest (parents before children, no
  slice crossing its parent's end), so each module's self time is its own time, as in
  `symbolite profile --by module`;
- screenshots of the time-ordered flame chart and the sandwich view are kept as artifacts.

Exit 77 (skipped) when chromium or speedscope is missing.

  python3 tests/report/check_trace_in_viewer.py --symbolite build/bin/symbolite --out build/report-artifacts
"""
import argparse
import collections
import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import headless_chromium  # beside this script

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, os.pardir, os.pardir)
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SPEEDSCOPE = os.path.join(ROOT, ".deps", "speedscope-1.25.0", "dist", "release")
SKIP = 77
UNITS = {"ns": 1e-3, "µs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6, "min": 6e7}


# What speedscope and Chromium's software WebGL log on every good load. Anything else on the
# console is a problem: speedscope reports slices it cannot nest there ("Tried to end ...").
BENIGN = ("speedscope v", "WebGL", "GL Driver Message", "Importing as Trace Event Format",
          '"import: ')


def console_errors(stderr):
    return headless_chromium.console_errors(stderr, BENIGN)


def chromium(args, url, profile, budget_ms=10000):
    return headless_chromium.run(args, url, profile, budget_ms=budget_ms)


def frame_name(event):
    """speedscope's name for a slice: its name, then its args as JSON.stringify writes them."""
    name = event.get("name") or "(unnamed)"
    if "args" in event:
        name += " " + json.dumps(event["args"], separators=(",", ":"), ensure_ascii=False)
    return name


def expected_times(trace):
    """{frame: [total µs, self µs]} from the trace's complete events, nested per thread."""
    times = collections.defaultdict(lambda: [0.0, 0.0])
    by_thread = collections.defaultdict(list)
    for e in trace["traceEvents"]:
        if e.get("ph") == "X":
            by_thread[(e["pid"], e["tid"])].append(e)
    for events in by_thread.values():
        # The order the trace promises: by start, parents (longer) before children.
        stack = []  # [event, time of its children]
        def close(entry):
            event, children = entry
            times[frame_name(event)][1] += event["dur"] - children
        for e in events:
            while stack and e["ts"] >= stack[-1][0]["ts"] + stack[-1][0]["dur"] - 1e-6:
                close(stack.pop())
            if stack:
                stack[-1][1] += e["dur"]
            stack.append([e, 0.0])
            times[frame_name(e)][0] += e["dur"]
        while stack:
            close(stack.pop())
    return times


def shown_times(dom):
    """{frame: (total µs, self µs)} from speedscope's sandwich table in the dumped DOM."""
    cells = [html.unescape(t) for t in re.findall(r">([^<>]+)<", dom)]
    value = re.compile(r"^([0-9.]+)(ns|µs|us|ms|s|min) \(<?([0-9.]+)%\)$")
    rows = {}
    i = 0
    while i + 2 < len(cells):
        a, b = value.match(cells[i]), value.match(cells[i + 1])
        if a and b and not value.match(cells[i + 2]):
            rows[cells[i + 2]] = (float(a.group(1)) * UNITS[a.group(2)],
                                  float(b.group(1)) * UNITS[b.group(2)])
            i += 3
        else:
            i += 1
    return rows


def close_enough(shown, expected):
    # speedscope prints 2 decimals in the largest fitting unit (1.23ms, 45.67µs).
    return abs(shown - expected) <= max(0.006 * abs(expected), 0.006)


def serve(directory):
    handler = functools.partial(QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--symbolite", required=True)
    parser.add_argument("--out", required=True, help="where the screenshots are kept")
    args = parser.parse_args()
    if not headless_chromium.binary():
        print("chromium not installed: skipped")
        return SKIP
    if not os.path.isfile(os.path.join(SPEEDSCOPE, "index.html")):
        print(f"speedscope not in {SPEEDSCOPE} (scripts/install-deps.sh test fetches it): skipped")
        return SKIP
    os.makedirs(args.out, exist_ok=True)
    problems = []
    with tempfile.TemporaryDirectory(prefix="symbolite-trace-") as work:
        site = os.path.join(work, "site")
        shutil.copytree(SPEEDSCOPE, site)
        trace_path = os.path.join(site, "trace.json")
        inputs = os.path.join(FIXTURES, "run", "nested", "valid_0")
        subprocess.run([args.symbolite, "profile", os.path.join(FIXTURES, "models", "nested.ptl"),
                        "--input", os.path.join(inputs, "input_0.npy"),
                        os.path.join(inputs, "input_1.npy"), "--runs", "3", "--trace", trace_path],
                       check=True, capture_output=True)
        with open(trace_path, encoding="utf-8") as f:
            trace = json.load(f)
        expected = expected_times(trace)
        names = {e["name"]: e["args"]["name"] for e in trace["traceEvents"]
                 if e.get("ph") == "M" and e["name"] in ("process_name", "thread_name")}
        server = serve(site)
        base = f"http://127.0.0.1:{server.server_address[1]}/index.html#profileURL=trace.json"
        profile = os.path.join(work, "chromium-profile")
        try:
            # 1. The flame chart in time order: loads, no console error, screenshot kept.
            shot = os.path.join(args.out, "trace.png")
            p = chromium([f"--screenshot={shot}", "--window-size=1400,900"], base, profile)
            problems += [f"time order view: {e}" for e in console_errors(p.stderr)]
            if not os.path.exists(shot) or os.path.getsize(shot) < 10000:
                problems.append(f"no screenshot of the trace (exit {p.returncode}): {p.stderr[-400:]}")
            # 2. The sandwich table: every slice's total and self time, as the trace implies.
            # The table fills in after speedscope's first frames: a loaded machine (the CI's
            # parallel tests) may dump the page before that, even with 10 s of virtual time
            # (it failed once in about ten runs with three tries), so up to six tries with
            # more virtual time each.
            for attempt in range(6):
                p = chromium(["--dump-dom", "--window-size=1400,4000"], base + "&view=sandwich",
                             profile, budget_ms=10000 * (attempt + 1))
                if shown_times(p.stdout):
                    break
            problems += [f"sandwich view: {e}" for e in console_errors(p.stderr)]
            chromium([f"--screenshot={os.path.join(args.out, 'trace-sandwich.png')}",
                      "--window-size=1400,900"], base + "&view=sandwich", profile)
        finally:
            server.shutdown()
        dom = p.stdout
        for kind in ("process_name", "thread_name"):
            if kind not in names:
                problems.append(f"the trace has no {kind} metadata event")
            elif html.escape(names[kind], quote=False) not in dom:
                problems.append(f"speedscope does not show the {kind} {names[kind]!r}")
        shown = shown_times(dom)
        if not shown:
            problems.append("speedscope's sandwich table is empty (the trace was not read)")
        for frame, (total, self_time) in sorted(expected.items()):
            if frame not in shown:
                problems.append(f"speedscope does not list {frame!r}")
                continue
            got_total, got_self = shown[frame]
            if not close_enough(got_total, total) or not close_enough(got_self, self_time):
                problems.append(f"{frame!r}: speedscope shows total {got_total:.3f} µs, self "
                                f"{got_self:.3f} µs; the trace implies {total:.3f}, {self_time:.3f}")
        for frame in sorted(set(shown) - set(expected)):
            problems.append(f"speedscope lists {frame!r}, which is not a slice of the trace")
        kinds = collections.Counter(e.get("cat") for e in trace["traceEvents"] if e.get("ph") == "X")
        if kinds["run"] != 3 or not kinds["module"] or not kinds["operator"]:
            problems.append(f"expected 3 run slices and module and operator slices: {dict(kinds)}")
    for problem in problems:
        print("FAIL", problem)
    print(f"{'ok' if not problems else 'FAILED'}: trace of nested.ptl in speedscope "
          f"({len(shown)} frames, each total and self time as the trace implies); "
          f"screenshots in {args.out}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
