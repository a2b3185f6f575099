#!/usr/bin/python3
"""Runs the symbolite CLI under Valgrind's memcheck on every shipped fixture and hostile file.

    /usr/bin/python3 tests/valgrind/run_valgrind.py --symbolite build/bin/symbolite

The AddressSanitizer build covers the unit tests; this covers the real binary as users run
it, on the paths a model takes end to end: every hostile file (refused with exit 1, never a
crash: models through `inspect`, the verifier's cases through `run`, sidecars through
`symbolicate --debug`), `run` of every committed run fixture (valid inputs and failing ones),
`symbolicate`, `split` and symbolication against the sidecar, and `profile`. A check fails on
any memcheck error (invalid read or write, use of uninitialised memory, a definite leak) or
an unexpected exit code. Prints one line per check, then `N passed, M failed`; exits 1 if any
failed and 77 (the ctest skip code) when valgrind is not installed.

The checks run a copy of the binary without its line tables (`objcopy --strip-debug`, symbols
kept): memcheck spends two thirds of a short run reading them. A check that fails is run again
on the binary itself, so its report names files and lines.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, os.pardir, "fixtures")
HOSTILE = os.path.join(HERE, os.pardir, "hostile")
SKIP = 77
MEMCHECK_ERROR = 99  # valgrind's exit code when it found an error


def memcheck(binary, args, accepted):
    """Problems running `binary args` under memcheck (empty when clean)."""
    # The command allocates with mimalloc (symbolite/CMakeLists.txt): memcheck replaces its
    # malloc and free as it does glibc's, so it still sees every allocation. mimalloc's free
    # and operator delete are one address, which memcheck names free: every delete would be a
    # "mismatched free", so that check is left to AddressSanitizer (alloc_dealloc_mismatch).
    command = ["valgrind", "--quiet", f"--error-exitcode={MEMCHECK_ERROR}", "--leak-check=full",
               "--errors-for-leak-kinds=definite", "--show-leak-kinds=definite",
               "--soname-synonyms=somalloc=libmimalloc.so*", "--show-mismatched-frees=no",
               binary, *args]
    process = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if process.returncode == MEMCHECK_ERROR:
        report = [line for line in process.stderr.splitlines() if line.startswith("==")]
        return ["memcheck: " + "\n".join(report[:40])]
    if process.returncode not in accepted:
        return [f"exit {process.returncode}, expected one of {sorted(accepted)}: "
                f"{process.stderr.strip()[:400]}"]
    return []


def without_line_tables(binary, work):
    """A copy of `binary` without debug sections in `work`, or `binary` when objcopy fails."""
    copy = os.path.join(work, os.path.basename(binary))
    if shutil.which("objcopy") is None:
        return binary
    process = subprocess.run(["objcopy", "--strip-debug", binary, copy], capture_output=True)
    return copy if process.returncode == 0 else binary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbolite", required=True, help="the symbolite binary")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind not installed: skipped")
        return SKIP

    checks = []  # (name, cli args, accepted exit codes), run below in parallel

    def check(name, cli_args, accepted=(0,)):
        checks.append((name, cli_args, set(accepted)))

    models = os.path.join(FIXTURES, "models")
    nested = os.path.join(models, "nested.ptl")
    check("inspect nested.ptl", ["inspect", nested])
    check("symbolicate nested.ptl", ["symbolicate", nested, "1", "5", "40", "999999"], (0, 1))
    delegated = os.path.join(models, "delegated.ptl")
    check("inspect delegated.ptl", ["inspect", "--json", delegated])
    check("symbolicate delegated.ptl I:B", ["symbolicate", delegated, "36:1", "36:3", "36:999"], (0, 1))

    with open(os.path.join(FIXTURES, "run", "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    for entry in manifest:
        directory = os.path.join(FIXTURES, "run", entry["dir"])
        inputs = [os.path.join(directory, name) for name in entry["inputs"]]
        failing = not entry.get("outputs")
        check(f"run {entry['model']} {entry['dir']}",
              ["run", os.path.join(models, entry["model"]), "--method", entry["method"],
               "--input", *inputs], (1,) if failing else (0,))

    tag_inputs = os.path.join(FIXTURES, "run", "tag_minus_one", "valid_0")
    for name in sorted(os.listdir(HOSTILE)):
        path = os.path.join(HOSTILE, name)
        if name.startswith("verifier_"):
            # well-formed records with bad code: refused when loaded for running, or (a handle
            # table that does not number the instructions) when a profile reads the handles
            check(f"profile hostile/{name}",
                  ["profile", path, "--input", os.path.join(tag_inputs, "input_0.npy"),
                   os.path.join(tag_inputs, "input_1.npy")], (1,))
        elif name.endswith((".ptl", ".zip", ".pt")):
            check(f"inspect hostile/{name}", ["inspect", path], (0, 1))
        elif name.endswith(".symdbg"):
            check(f"symbolicate --debug hostile/{name}",
                  ["symbolicate", "--debug", path, "1", "2", "3"], (0, 1))

    work = tempfile.mkdtemp(prefix="symbolite-valgrind-")
    try:
        binary = without_line_tables(args.symbolite, work)
        stripped = os.path.join(work, "stripped.ptl")
        sidecar = os.path.join(work, "nested.symdbg")
        # split first: the sidecar check reads its output
        problems = memcheck(binary, ["split", nested, "--out", stripped, "--debug", sidecar],
                            {0})
        results = [("split nested.ptl", problems)]
        check("symbolicate against the sidecar",
              ["symbolicate", stripped, "--debug", sidecar, "1", "5", "40"], (0, 1))
        valid = next(e for e in manifest if e["model"] == "nested.ptl" and e.get("outputs"))
        directory = os.path.join(FIXTURES, "run", valid["dir"])
        check("profile nested.ptl",
              ["profile", nested, "--runs", "2", "--warmup", "1", "--shapes", "--flops",
               "--memory", "--trace",
               os.path.join(work, "trace.json"), "--input",
               *[os.path.join(directory, name) for name in valid["inputs"]]])
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            futures = [(name, pool.submit(memcheck, binary, cli_args, accepted))
                       for name, cli_args, accepted in checks]
            results += [(name, future.result()) for name, future in futures]
        if binary != args.symbolite:
            by_name = {name: (cli_args, accepted) for name, cli_args, accepted in checks}
            results = [(name, memcheck(args.symbolite, *by_name[name])
                        if problems and name in by_name else problems)
                       for name, problems in results]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    passed = failed = 0
    for name, problems in results:
        if problems:
            failed += 1
            print(f"FAIL {name}\n     " + "\n".join(problems).replace("\n", "\n     "))
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
