"""symbolite.dask on a two-worker LocalCluster: a fleet's crash reports (over 100,000 lines,
seven model versions, malformed ones of every kind) symbolicated against a sidecar store give
the CLI's answers, one record per report, in order, each sidecar opened once per worker; and
profiles of many runs sum into one module table. Run by ctest (python.pytest) with PYTHONPATH
at the build tree's python/ and SYMBOLITE_CLI at the CLI.

make_fleet() is also what bench/bench_dask.py measures."""

import json
import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pytest

import symbolite

distributed = pytest.importorskip("distributed")
import dask.bag as db  # noqa: E402  (after the skip: dask comes with distributed)

import symbolite.dask as sd  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
MODELS = FIXTURES / "models"
RUN = FIXTURES / "run"

# distributed's LocalCluster on Debian's tornado 6.2.
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")

# Fixture models with call stacks, each a "version" deployed to the fleet: distinct model ids.
VERSIONS = ["nested", "encoder", "encoder64", "lstm", "pooling", "conv1d", "shape_ops"]


def cli() -> str:
    path = os.environ.get("SYMBOLITE_CLI")
    if not path:
        pytest.skip("SYMBOLITE_CLI not set")
    return path


@dataclass
class Version:
    name: str
    model_id: str
    stripped: Path
    sidecar: Path
    handles: List[int]                               # every handle the sidecar resolves
    run_errors: List[str] = field(default_factory=list)  # symbolite's failures of the stripped model


@dataclass
class Fleet:
    versions: List[Version]
    store: Dict[str, str]                            # as sidecar_store() made it
    reports: List[Any]
    ids: List[Any]                                   # the record id each report must come back with
    version_of: Dict[int, Version]                   # well-formed report index -> its version
    shape_of: Dict[int, str]                         # well-formed report index -> its shape
    malformed: Dict[int, str]                        # report index -> part of its expected error
    bad_store: Dict[str, str]                        # ids whose sidecar files do not open
    lines: int


def split_versions(cli_path: str, directory: Path) -> List[Version]:
    """Splits each version with the CLI and makes its run errors: the stripped model run by
    `symbolite run` on the fixtures' failing inputs."""
    (directory / "stripped").mkdir()
    (directory / "sidecars").mkdir()
    manifest = json.loads((RUN / "manifest.json").read_text())
    versions = []
    for name in VERSIONS:
        stripped = directory / "stripped" / f"{name}.ptl"
        sidecar = directory / "sidecars" / f"{name}.symdbg"
        out = subprocess.run([cli_path, "split", str(MODELS / f"{name}.ptl"), "--out", str(stripped),
                              "--debug", str(sidecar), "--json"], check=True, capture_output=True, text=True)
        info = symbolite.open_debug_info(sidecar)
        handles = [s.handle for s in info.symbolicate(range(4096)) if s.status != "not_found"]
        version = Version(name, json.loads(out.stdout)["model_id"], stripped, sidecar, handles)
        for case in manifest:
            if case["model"] != f"{name}.ptl" or "error_type" not in case:
                continue
            inputs = [str(RUN / case["dir"] / i) for i in case["inputs"]]
            run = subprocess.run([cli_path, "run", str(stripped), "--method", case["method"],
                                  "--input", *inputs], capture_output=True, text=True)
            assert run.returncode == 1 and f"model id {version.model_id}" in run.stderr, run.stderr
            version.run_errors.append(run.stderr.rstrip("\n"))
        assert version.run_errors and version.model_id == info.model_id
        versions.append(version)
    return versions


NOISE = ["I inference: request {n} served in {ms} ms", "D net: keep-alive ping ok",
         "W battery: level {n} %, throttling inference", "I ui: frame {n} drawn",
         "I inference: loading model from /data/models/current.ptl",
         "I capteur: température {n} °C", "D 设备: 状态 ok ({n})", "I gc: collected {n} objects"]


def noise(rng: random.Random, count: int) -> List[str]:
    def line() -> str:
        when = f"2026-11-20 10:{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(1000):03d}"
        return f"{when} " + rng.choice(NOISE).format(n=rng.randrange(10_000), ms=rng.randrange(1, 80))
    return [line() for _ in range(count)]


def symbolite_log(rng: random.Random, v: Version) -> str:
    """An app on symbolite's runtime: its run error (naming the model id), maybe repeated."""
    lines = noise(rng, rng.randrange(5, 40))
    for _ in range(rng.randrange(1, 4)):
        lines.append("E inference: forward() failed:")
        lines += ["  " + line for line in rng.choice(v.run_errors).split("\n")]
        lines += noise(rng, rng.randrange(0, 15))
    return "\n".join(lines) + "\n"


def pytorch_log(rng: random.Random, v: Version, header: Optional[str]) -> str:
    """An app on PyTorch's lite interpreter running the stripped model: handle sets, the
    model id in a header line (or nowhere, for dict reports that carry it)."""
    lines = [header] if header else []
    lines += noise(rng, rng.randrange(5, 30))
    for _ in range(rng.randrange(1, 6)):
        handles = rng.sample(v.handles, rng.randrange(1, 4))
        if rng.random() < 0.05:
            handles.append(len(v.handles) + rng.randrange(100))  # a handle this version lacks
        listed = ", ".join(map(str, handles))
        lines += ["E inference: forward() failed: The following operation failed in the TorchScript "
                  "interpreter.", "  ",
                  f"  Debug info for handle(s): debug_handles:{{{listed}}}, was not found."]
        lines += noise(rng, rng.randrange(0, 10))
    return "\n".join(lines) + "\n"


SHAPES = ["symbolite", "pytorch", "dict", "json", "bytes"]


def well_formed(rng: random.Random, v: Version, index: int) -> Tuple[Any, Any, str]:
    """A report of one of the SHAPES, the id its record must carry, and its shape."""
    shape = rng.choice(SHAPES)
    if shape == "symbolite":
        return symbolite_log(rng, v), index, shape
    if shape == "pytorch":
        header = f"app=camera/4.2 device=pixel-{rng.randrange(9)} model_id={v.model_id}"
        return pytorch_log(rng, v, header), index, shape
    if shape == "dict":
        report_id = f"device-{rng.randrange(10_000)}/crash-{index}"
        return {"id": report_id, "model_id": v.model_id, "text": pytorch_log(rng, v, None)}, report_id, shape
    if shape == "json":  # a crash reporter's upload: one line holding the whole log
        upload = {"model_id": v.model_id, "log": pytorch_log(rng, v, None)}
        return json.dumps(upload, ensure_ascii=False), index, shape
    return symbolite_log(rng, v).encode("utf-8"), index, shape


def malformed(versions: List[Version], bad_store: Dict[str, str]) -> List[Tuple[Any, str]]:
    """Every kind of report that cannot be symbolicated, with part of its expected error."""
    a, b = versions[0], versions[1]
    corrupt_id, missing_id = bad_store
    handles = "  Debug info for handle(s): debug_handles:{3, 4}, was not found.\n"
    return [
        ("I inference: crashed\n" + handles, "no model id"),
        (f"model_id: {'0' * 31}7\n" + handles, "is not in the sidecar store"),
        (f"model_id: {a.model_id}\nmodel_id: {b.model_id}\n" + handles, "names 2 model ids"),
        (f"model_id={a.model_id}\nI inference: all good\n", "no debug handles found"),
        (a.run_errors[0].split("(debug handle")[0] + f"; model id {a.model_id}\n", "no debug handles found"),
        (404, "not text but int"),
        (None, "not text but NoneType"),
        ({"id": "no-text", "model_id": a.model_id}, "no 'text'"),
        ({"id": "text-is-a-list", "text": ["debug handle 3"]}, "not text but list"),
        (f"model_id: {a.model_id}\n".encode() + b"\xff\xfe debug handle 3\n", "not UTF-8"),
        (f"model_id: {corrupt_id}\n" + handles, "does not open"),
        (f"model_id: {missing_id}\n" + handles, "does not open"),
        (f"model_id: {a.model_id}\n\ud800 debug handle 3\n", "not valid text"),  # a lone surrogate
    ]


def make_fleet(cli_path: str, directory: Path, min_lines: int = 100_000, seed: int = 16) -> Fleet:
    """Sidecars of VERSIONS in directory/sidecars, their store, and reports totalling at least
    `min_lines` lines with the malformed ones scattered among them."""
    versions = split_versions(cli_path, directory)
    store = sd.sidecar_store(directory / "sidecars")
    # Sidecars that went bad after the store was made: a truncated copy and a deleted file.
    truncated = directory / "truncated.symdbg"
    truncated.write_bytes(versions[0].sidecar.read_bytes()[:100])
    bad_store = {"ba" * 16: str(truncated), "de" * 16: str(directory / "deleted.symdbg")}

    rng = random.Random(seed)
    fleet = Fleet(versions, store, [], [], {}, {}, {}, bad_store, 0)
    bad = malformed(versions, bad_store)
    bad_at = set(rng.sample(range(2_000), len(bad)))
    while fleet.lines < min_lines or bad:
        index = len(fleet.reports)
        if index in bad_at or (fleet.lines >= min_lines and bad):
            report, expected = bad.pop()
            fleet.malformed[index] = expected
            report_id = report.get("id", index) if isinstance(report, dict) else index
        else:
            version = versions[index % len(versions)] if index < len(versions) else rng.choice(versions)
            report, report_id, fleet.shape_of[index] = well_formed(rng, version, index)
            fleet.version_of[index] = version
        text = report.get("text") if isinstance(report, dict) else report
        if isinstance(text, (str, bytes)):
            fleet.lines += len(text.splitlines())
        fleet.reports.append(report)
        fleet.ids.append(report_id)
    return fleet


def cli_results(cli_path: str, sidecar: Path, text: str) -> subprocess.CompletedProcess:
    return subprocess.run([cli_path, "symbolicate", "--debug", str(sidecar), "-", "--json"],
                          input=text.encode("utf-8"), capture_output=True)


def text_of(report: Any) -> str:
    text = report["text"] if isinstance(report, dict) else report
    return text.decode("utf-8") if isinstance(text, bytes) else text


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Fleet:
    return make_fleet(cli(), tmp_path_factory.mktemp("fleet"))


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def test_every_report_comes_back_once_in_order_with_the_clis_results(fleet, client):
    assert fleet.lines >= 100_000
    store = {**fleet.store, **fleet.bad_store}
    records = sd.symbolicate_reports(fleet.reports, store, npartitions=32).compute()

    assert len(records) == len(fleet.reports)
    assert [r["report"] for r in records] == fleet.ids
    for index, version in fleet.version_of.items():
        record = records[index]
        assert record["error"] is None and record["results"], (index, record["error"])
        assert record["model_id"] == version.model_id
    for index, expected in fleet.malformed.items():
        record = records[index]
        assert record["error"] and expected in record["error"], (index, record["error"])
        assert record["results"] == []

    # The CLI is the reference: a sample spanning every version and shape of report, compared
    # result by result.
    rng = random.Random(1616)
    groups: Dict[str, List[int]] = {}
    for index, version in fleet.version_of.items():
        groups.setdefault(version.name, []).append(index)
        groups.setdefault(fleet.shape_of[index], []).append(index)
    sample = {i for indexes in groups.values() for i in rng.sample(indexes, 2)}
    sample |= set(rng.sample(sorted(fleet.version_of), 40 - len(sample)))
    assert {fleet.version_of[i].name for i in sample} == set(VERSIONS)
    assert {fleet.shape_of[i] for i in sample} == set(SHAPES)
    for index in sorted(sample):
        theirs = cli_results(cli(), fleet.version_of[index].sidecar, text_of(fleet.reports[index]))
        assert theirs.returncode in (0, 1), theirs.stderr  # 1: some handle not found
        assert records[index]["results"] == json.loads(theirs.stdout)["results"], index
    # ... and a report without handles is one for the CLI too.
    no_handles = next(i for i, e in fleet.malformed.items() if e == "no debug handles found")
    theirs = cli_results(cli(), fleet.versions[0].sidecar, text_of(fleet.reports[no_handles]))
    assert theirs.returncode != 0 and b"no debug handles found" in theirs.stderr

    # Each worker opened each sidecar at most once (failed opens included), however many
    # partitions and reports named it; between them they opened every one.
    stats = client.run(sd.cache_stats)
    assert len(stats) == 2
    opened = set()
    for worker in stats.values():
        assert worker["debug_info"] and set(worker["debug_info"].values()) == {1}, worker
        opened |= set(worker["debug_info"])
    assert opened == set(store.values())


def test_a_bag_of_report_files_read_on_the_workers(fleet, client, tmp_path):
    # In a bag, a report without an id is named by its partition and place.
    picked = sorted(fleet.version_of)[:30]
    bag = db.from_sequence([fleet.reports[i] for i in picked], partition_size=8)
    records = sd.symbolicate_reports(bag, fleet.store).compute()
    assert [r["report"] for r in records] == [
        fleet.ids[i] if isinstance(fleet.ids[i], str) else f"{n // 8}:{n % 8}" for n, i in enumerate(picked)]
    # Files: one report each, read by the workers, the path as its id.
    written = {}
    for n, i in enumerate(picked):
        path = tmp_path / f"crash-{n:02d}.log"
        path.write_bytes(text_of(fleet.reports[i]).encode("utf-8"))
        written[str(path)] = (fleet.reports[i], records[n])
    undecodable, vanished = tmp_path / "crash-98.log", tmp_path / "crash-99.log"
    undecodable.write_bytes(b"model_id: " + fleet.versions[0].model_id.encode() + b"\n\xff debug handle 3\n")
    vanished.write_text(text_of(fleet.reports[picked[0]]))
    bag = sd.read_reports(str(tmp_path / "crash-*.log"), files_per_partition=7)
    vanished.unlink()  # listed, then rotated away before a worker reads it
    got = {r["report"]: r for r in sd.symbolicate_reports(bag, fleet.store).compute()}

    assert set(got) == set(written) | {str(undecodable), str(vanished)}
    for path, (report, record) in written.items():
        if isinstance(report, dict):  # its model id was beside the text, not in it
            assert "no model id" in got[path]["error"]
        else:
            assert got[path]["error"] is None and got[path]["results"] == record["results"], path
    assert "not UTF-8" in got[str(undecodable)]["error"]
    assert got[str(vanished)]["error"].startswith(f"cannot read {vanished}")


def test_model_ids_in_text():
    a, b = "af71c0fa66421c7abf4d970e53033d73", "9726c1aa79bbb99824ac38818d4aa38f"
    text = (f"...; model id {a}. The model carries no call stacks\nmodel_id={b.upper()}\n"
            f'{{"model_id": "{a}"}}\nsymbolite_model_id: {"0" * 32}\nmodel id {b}ff\n')
    assert sd.find_model_ids(text) == [a, b]
    assert sd.find_model_ids("model id 12345") == []


def test_the_store_refuses_two_sidecars_of_one_model(fleet, tmp_path):
    shutil.copy(fleet.versions[0].sidecar, tmp_path / "copy.symdbg")
    paths = [fleet.versions[0].sidecar, tmp_path / "copy.symdbg"]
    with pytest.raises(ValueError) as caught:
        sd.sidecar_store(paths)
    assert str(paths[0]) in str(caught.value) and str(paths[1]) in str(caught.value)
    assert fleet.versions[0].model_id in str(caught.value)


def nested_inputs(n: int) -> List[Tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(16)
    return [(rng.standard_normal((2, 4), dtype=np.float32), rng.standard_normal((2, 4), dtype=np.float32))
            for _ in range(n)]


def test_profiles_of_many_runs_sum_into_one_module_table(client, tmp_path):
    model = MODELS / "nested.ptl"
    inputs = nested_inputs(200)
    single = symbolite.load(model).profile(*inputs[0], flops=True)
    table = sd.aggregate_profiles(sd.profile_bag(model, inputs, npartitions=8, flops=True))

    one_run = {row["path"]: row for row in single.modules}
    assert {row["path"] for row in table} == set(one_run)
    for row in table:
        assert row["runs"] == len(inputs)
        assert row["ops"] == len(inputs) * one_run[row["path"]]["ops"], row["path"]
        assert row["flops"] == len(inputs) * one_run[row["path"]]["flops"], row["path"]
        assert row["inclusive_ns"] >= row["exclusive_ns"] >= 0
        assert row["mean_ops"] == one_run[row["path"]]["ops"]
    top = table[0]
    assert top["depth"] == 0 and top["percent"] == 100.0
    assert top["inclusive_ns"] == sum(row["exclusive_ns"] for row in table)
    times = [row["inclusive_ns"] for row in table]
    assert times == sorted(times, reverse=True)
    # A stripped model is attributed to its modules through its sidecar.
    stripped, sidecar = tmp_path / "nested.ptl", tmp_path / "nested.symdbg"
    subprocess.run([cli(), "split", str(model), "--out", str(stripped), "--debug", str(sidecar)],
                   check=True, capture_output=True)
    with_sidecar = sd.aggregate_profiles(sd.profile_bag(stripped, inputs[:20], debug=sidecar))
    assert {row["path"]: row["ops"] for row in with_sidecar} == {p: 20 * r["ops"] for p, r in one_run.items()}
    without = sd.aggregate_profiles(sd.profile_bag(stripped, inputs[:20]))
    assert [(row["path"], row["ops"]) for row in without] == [(top["path"], 20 * one_run[top["path"]]["ops"])]
    # Each model (nested.ptl, the stripped one alone and with its sidecar) was loaded once per
    # worker that ran it.
    loaded = [worker["models"] for worker in client.run(sd.cache_stats).values()]
    assert all(set(counts.values()) <= {1} for counts in loaded)
    assert len(set().union(*loaded)) == 3

    # Tables computed elsewhere combine with it: Profile objects, their rows, tables.
    again = sd.aggregate_profiles([table, single, single.modules])
    assert {row["path"]: row["ops"] for row in again} == \
        {path: (len(inputs) + 2) * row["ops"] for path, row in one_run.items()}
    pandas = pytest.importorskip("pandas")
    frame = sd.to_dataframe(table)
    assert isinstance(frame, pandas.DataFrame) and frame.loc[top["path"], "ops"] == top["ops"]


def test_import_symbolite_needs_no_dask():
    code = "import sys, symbolite; assert 'dask' not in sys.modules and 'distributed' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
