#!/usr/bin/env python3
"""Writes fuzz/corpus/model_run/: the committed fixture models that have run inputs, each with
the inputs of one valid call packed into the archive as model_run_fuzz.cpp reads them
(records `fuzz_input_<i>.npy` or `.json`, and `fuzz_method` when the method is not forward). Inputs
whose JSON refers to tensor files are left out: the harness reads nothing from disk. Also
regression inputs: tests/fixtures/bad/ models that once got past the checks (run this after
make_bad_models.py).

Run from anywhere with any Python 3 (no torch needed):  python3 fuzz/make_model_run_corpus.py
"""
import json
import pathlib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
OUT = ROOT / "fuzz" / "corpus" / "model_run"


def calls():
    """(model file, method, call directory, input file names), one valid call a model."""
    seen = set()
    for entry in json.loads((FIXTURES / "run" / "manifest.json").read_text()):
        if entry["model"] in seen or not entry.get("outputs"):
            continue
        seen.add(entry["model"])
        yield entry["model"], entry["method"], FIXTURES / "run" / entry["dir"], entry["inputs"]
    for entry in json.loads((FIXTURES / "run" / "containers" / "calls.json").read_text()):
        folder = FIXTURES / "run" / "containers" / entry["dir"]
        if any("$tensor" in (folder / name).read_text()
               for name in entry["inputs"] if name.endswith(".json")):
            continue
        yield "containers.ptl", entry["method"], folder, entry["inputs"]
    # Regression inputs: bytecode short of an operator's arguments (make_bad_models.py).
    nested = FIXTURES / "run" / "nested" / "valid_0"
    for bad in ("stack_underflow.ptl", "opn_count_beyond_stack.ptl"):
        yield f"../bad/{bad}", "direct", nested, ["input_0.npy", "input_0.npy"]


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.ptl"):
        old.unlink()
    for model, method, folder, inputs in calls():
        target = OUT / f"{pathlib.Path(model).stem}_{method}_{folder.name}.ptl"
        with zipfile.ZipFile(FIXTURES / "models" / model) as src, \
                zipfile.ZipFile(target, "w") as dst:
            for info in src.infolist():
                dst.writestr(info, src.read(info.filename))
            record_folder = src.namelist()[0].split("/", 1)[0]
            for i, name in enumerate(inputs):
                suffix = pathlib.Path(name).suffix
                dst.writestr(f"{record_folder}/fuzz_input_{i}{suffix}",
                             (folder / name).read_bytes())
            if method != "forward":
                dst.writestr(f"{record_folder}/fuzz_method", method)
        print(target.relative_to(ROOT), target.stat().st_size)


if __name__ == "__main__":
    main()
