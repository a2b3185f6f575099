#!/usr/bin/env python3
"""Fleet symbolication on Dask: reports and lines symbolicated per second by symbolite.dask,
in-process and on a LocalCluster of 1 and 2 worker processes.

  /usr/bin/python3 bench/bench_dask.py --build build [--lines 1000000] [--repeats 3]

The reports are python/tests/test_dask.py's fleet (seven model versions split with `symbolite
split`; symbolite run errors, PyTorch handle sets, JSON uploads, a few malformed reports),
scaled to --lines lines. Scenarios:
- "list -> client": reports in the client's memory, records collected back into it
  (`symbolicate_reports(list, store).compute()`): what the test does;
- "files -> files": one file per report, read by the workers (`read_reports`), records
  written by the workers as JSON lines (`.map(json.dumps).to_textfiles(...)`): nothing
  passes through the client, as on a real cluster.
"in-process" runs the first scenario with Dask's synchronous scheduler: the symbolication
alone, one core, no cluster. Times are the median of --repeats runs after one warm-up run (the
warm-up opens the sidecars; workers keep them). Prints a markdown table (docs/PERFORMANCE.md).
"""
import argparse
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--lines", type=int, default=1_000_000, help="lines of reports (at least)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=64)
    args = parser.parse_args()

    build = Path(args.build).resolve()
    # Spawned worker processes import symbolite too.
    paths = [str(build / "python"), os.environ.get("PYTHONPATH")]
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    sys.path[:0] = [str(build / "python"), str(ROOT / "python" / "tests")]
    from distributed import Client, LocalCluster

    import symbolite.dask as sd
    from test_dask import make_fleet, text_of  # the test's fleet of reports, scaled up

    # "full garbage collections took 15% CPU time recently": records are many small objects.
    logging.getLogger("distributed.utils_perf").setLevel(logging.ERROR)

    work = Path(tempfile.mkdtemp(prefix="bench_dask_"))
    try:
        start = time.perf_counter()
        fleet = make_fleet(str(build / "bin" / "symbolite"), work, min_lines=args.lines)
        store = {**fleet.store, **fleet.bad_store}
        reports_dir = work / "reports"
        reports_dir.mkdir()
        file_lines = 0
        for i, report in enumerate(fleet.reports):
            try:
                data = text_of(report).encode("utf-8")
            except Exception:  # noqa: BLE001 -- the malformed reports that are not text
                continue
            (reports_dir / f"{i:07d}.log").write_bytes(data)
            file_lines += len(data.splitlines())
        n_reports, n_lines = len(fleet.reports), fleet.lines
        print(f"{n_reports:,} reports, {n_lines:,} lines, {len(fleet.versions)} model versions "
              f"(generated in {time.perf_counter() - start:.1f} s)", file=sys.stderr)

        def list_to_client(**compute):
            bag = sd.symbolicate_reports(fleet.reports, store, npartitions=args.partitions)
            assert len(bag.compute(**compute)) == n_reports

        n_files = sum(1 for _ in reports_dir.iterdir())
        out = work / "out"

        def files_to_files():
            shutil.rmtree(out, ignore_errors=True)
            per_partition = -(-n_files // args.partitions)
            bag = sd.read_reports(str(reports_dir / "*.log"), files_per_partition=per_partition)
            sd.symbolicate_reports(bag, store).map(json.dumps).to_textfiles(str(out / "*.jsonl"))

        def timed(run):
            run()  # warm-up: imports, sidecar opens
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                run()
                times.append(time.perf_counter() - start)
            return statistics.median(times)

        rows = [("list -> client", "in-process", n_reports, n_lines,
                 timed(lambda: list_to_client(scheduler="sync")), 1)]
        for workers in (1, 2):
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              dashboard_address=None, silence_logs=logging.ERROR) as cluster, Client(cluster):
                rows.append(("list -> client", workers, n_reports, n_lines, timed(list_to_client), workers))
                rows.append(("files -> files", workers, n_files, file_lines, timed(files_to_files),
                             workers))

        print("| scenario | workers | reports | lines | time (s) | reports/s | lines/s "
              "| lines/s per worker |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for scenario, workers, reports, lines, seconds, processes in rows:
            rate = lines / seconds
            print(f"| {scenario} | {workers} | {reports:,} | {lines:,} | {seconds:.2f} "
                  f"| {reports / seconds:,.0f} | {rate:,.0f} | {rate / processes:,.0f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
