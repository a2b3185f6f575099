#!/usr/bin/env python3
"""Names two sources of one target define alike, before a unity build puts them together.

CI compiles in unity batches (CMAKE_UNITY_BUILD: eight sources per translation unit), and a
batch's sources share one translation unit: two files that each define a helper of the same
name in the same namespace (an anonymous namespace's `naive`, `kLanes`, `clear`) compile alone
but not together. Which files share a batch shifts whenever a file is added, so such a pair is
a build failure waiting for an unrelated change. This check compiles, for every target of a
configured unity tree, all of the target's batched sources as one translation unit with
-fsyntax-only: any pair that could ever share a batch meets there.

    scripts/unity_collisions.py BUILD_DIR     (a tree configured with -DCMAKE_UNITY_BUILD=ON;
                                               CI: build-asan, whose kernels are batched too)

Exits 1 and prints the compiler's errors when two sources collide; about a minute on 2 cores.
"""
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile


def target_command(commands, unity_dir):
    """The compiler and flags of one of the target's unity sources, for a syntax-only run."""
    entry = next(c for c in commands if c["file"].startswith(unity_dir + os.sep))
    args = shlex.split(entry["command"])
    if os.path.basename(args[0]) == "ccache":
        args = args[1:]
    kept, skip = [args[0]], False
    for a in args[1:]:
        if skip:
            skip = False
        elif a in ("-o", "-c", "-MF", "-MT"):
            skip = True
        elif not (a == "-MD" or a.startswith("-fsanitize") or a == entry["file"]):
            kept.append(a)
    return kept, entry["directory"]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    failed = False
    for unity_dir in sorted(glob.glob(os.path.join(build, "**", "Unity"), recursive=True)):
        batches = sorted(glob.glob(os.path.join(unity_dir, "unity_*_cxx.cxx")))
        if len(batches) < 2:
            continue  # one batch: the build itself compiled every pair
        includes = "".join(line for b in batches for line in open(b) if line.startswith("#include"))
        command, directory = target_command(commands, unity_dir)
        with tempfile.NamedTemporaryFile("w", suffix=".cxx") as whole:
            whole.write(includes)
            whole.flush()
            done = subprocess.run(command + ["-fsyntax-only", "-fmax-errors=0", whole.name],
                                  cwd=directory, capture_output=True, text=True)
        target = os.path.relpath(os.path.dirname(unity_dir), build)
        if done.returncode != 0:
            failed = True
            print(f"-- {target}: sources that cannot share a unity batch")
            print("\n".join(line for line in done.stderr.splitlines()
                            if "error" in line or "note: " in line))
        else:
            print(f"{target}: {len(batches)} batches, no collision")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
