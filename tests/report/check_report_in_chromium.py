#!/usr/bin/env python3
"""Opens `symbolite profile --report` and `--svg` output in headless Chromium (Debian's
`chromium`), offline: the page must load without console errors or failed requests, the
sorting script must run (a click on the "calls" header reorders the table), and a screenshot
is kept as the test's artifact (build/report-artifacts/report.png). Exit 77 (skipped) when
chromium is not installed.

  python3 tests/report/check_report_in_chromium.py --symbolite build/bin/symbolite --out build/report-artifacts
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from headless_chromium import binary, console_errors  # beside this script
from headless_chromium import run as headless_run

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, os.pardir, "fixtures")
SKIP = 77

# Run after the page's own script: click "calls" twice (descending), record the first row.
CLICK = """
<script>
window.addEventListener('load', () => {
  const th = document.querySelectorAll('#ops th')[1];
  th.click(); th.click();
  const calls = Array.from(document.querySelectorAll('#ops tbody tr')).map(r => parseFloat(r.cells[1].textContent));
  document.title = 'SORTED ' + JSON.stringify(calls);
});
</script>
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--symbolite", required=True)
    parser.add_argument("--out", required=True, help="where the screenshot is kept")
    args = parser.parse_args()
    if not binary():
        print("chromium not installed: skipped")
        return SKIP
    os.makedirs(args.out, exist_ok=True)
    problems = []
    with tempfile.TemporaryDirectory(prefix="symbolite-report-") as work:
        report = os.path.join(work, "report.html")
        svg = os.path.join(work, "flame.svg")
        inputs = os.path.join(FIXTURES, "run", "nested", "valid_0")
        subprocess.run([args.symbolite, "profile", os.path.join(FIXTURES, "models", "nested.ptl"),
                        "--input", os.path.join(inputs, "input_0.npy"), os.path.join(inputs, "input_1.npy"),
                        "--runs", "5", "--report", report, "--svg", svg], check=True,
                       capture_output=True)
        profile = os.path.join(work, "chromium-profile")
        # 1. The page as written: loads offline, no console error, screenshot kept.
        shot = os.path.join(args.out, "report.png")
        p = headless_run([f"--screenshot={shot}", "--window-size=1280,1600"], "file://" + report, profile)
        problems += [f"report.html: {e}" for e in console_errors(p.stderr)]
        if not os.path.exists(shot) or os.path.getsize(shot) < 10000:
            problems.append(f"no screenshot of report.html (exit {p.returncode}): {p.stderr[-400:]}")
        # 2. The SVG alone.
        p = headless_run([f"--screenshot={os.path.join(args.out, 'flame.png')}", "--window-size=1280,400"],
                     "file://" + svg, profile)
        problems += [f"flame.svg: {e}" for e in console_errors(p.stderr)]
        # 3. The sorting script works: a copy with a click appended, its DOM dumped.
        clicked = os.path.join(work, "clicked.html")
        with open(report, encoding="utf-8") as f:
            page = f.read()
        with open(clicked, "w", encoding="utf-8") as f:
            f.write(page.replace("</body>", CLICK + "</body>"))
        p = headless_run(["--dump-dom"], "file://" + clicked, profile)
        problems += [f"clicked.html: {e}" for e in console_errors(p.stderr)]
        m = re.search(r"<title>SORTED (\[[^<]*\])</title>", p.stdout)
        if not m:
            problems.append("the sort script did not run (no SORTED title in the dumped DOM)")
        else:
            calls = [float(x) for x in m.group(1).strip("[]").split(",") if x]
            if len(calls) < 2 or calls != sorted(calls, reverse=True):
                problems.append(f"two clicks on 'calls' did not sort descending: {calls}")
    for problem in problems:
        print("FAIL", problem)
    print(f"{'ok' if not problems else 'FAILED'}: report and flame graph in headless Chromium; "
          f"screenshots in {args.out}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
