"""Model.profile, symbolite.split, load(debug=SIDECAR) and DebugInfo, each against what the
CLI gives for the same model and inputs (the CLI is checked against PyTorch elsewhere) and
against PyTorch's goldens in tests/fixtures/run/manifest.json."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import symbolite

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
MODELS = FIXTURES / "models"
CASES = {c["dir"]: c for c in json.loads((FIXTURES / "run" / "manifest.json").read_text())}


def cli_path():
    cli = os.environ.get("SYMBOLITE_CLI")
    if not cli:
        pytest.skip("SYMBOLITE_CLI not set")
    return cli


def cli_json(*args, stdin=None, exit_code=0):
    r = subprocess.run([cli_path(), *map(str, args), "--json"], input=stdin, capture_output=True, text=True)
    assert r.returncode == exit_code, r.stderr
    return json.loads(r.stdout)


def input_files(case_dir):
    return [FIXTURES / "run" / case_dir / name for name in CASES[case_dir]["inputs"]]


def inputs(case_dir):
    return [np.load(p) for p in input_files(case_dir)]


def tree_shape(node):
    """A module tree without its times (they differ run to run)."""
    keep = {k: v for k, v in node.items() if k not in ("inclusive_ns", "exclusive_ns", "children")}
    keep["children"] = [tree_shape(c) for c in node["children"]]
    return keep


def test_profile_tables_equal_the_clis():
    case = "nested/valid_0"
    model = symbolite.load(MODELS / "nested.ptl")
    ours = model.profile(*inputs(case), runs=3, warmup=0, shapes=True, flops=True, memory=True)
    args = [x for p in input_files(case) for x in ("--input", p)]
    theirs = cli_json("profile", MODELS / "nested.ptl", *args, "--runs", 3, "--warmup", 0,
                      "--shapes", "--flops", "--memory")
    assert ours.events == theirs["events"] and ours.runs == 3

    def untimed(rows):
        return sorted(json.dumps({k: v for k, v in r.items() if k not in ("total_ns", "self_ns", "percent")},
                                 sort_keys=True) for r in rows)

    assert untimed(ours.operators) == untimed(theirs["operators"])
    assert tree_shape(ours.module_tree) == tree_shape(theirs["modules"])
    assert ours.module_tree["module"] == "top(Nested)" and ours.has_call_stacks


def test_profile_views_agree_with_each_other():
    case = "nested/valid_0"
    p = symbolite.load(MODELS / "nested.ptl").profile(*inputs(case), runs=2)
    assert sum(r["count"] for r in p.operators) == p.events
    assert abs(sum(r["percent"] for r in p.operators) - 100) < 1e-6
    # Module rows: depth-first, paths extend their parent's, inclusive covers exclusive.
    rows = p.modules
    assert rows[0]["path"] == "top(Nested)" and rows[0]["depth"] == 0
    assert rows[0]["ops"] == p.events
    assert rows[0]["inclusive_ns"] == sum(r["exclusive_ns"] for r in rows)
    for row in rows[1:]:
        assert row["path"].endswith("." + row["module"]) and row["inclusive_ns"] >= row["exclusive_ns"]
    assert any(r["path"] == "top(Nested).level1(Level1).level2(Level2)" for r in rows)
    # One trace event per operator call, each named by its operator.
    ops = [e for e in p.chrome_trace["traceEvents"] if e.get("cat") == "operator"]
    assert len(ops) == p.events
    assert sorted({e["name"] for e in ops}) == sorted(r["op"] for r in p.operators)
    # Folded stacks: one line per module path and operator.
    lines = p.folded.splitlines()
    assert lines and all(line.startswith("top(Nested)") for line in lines)
    assert {line.rsplit(" ", 1)[0].rsplit(";", 1)[1] for line in lines} == {r["op"] for r in p.operators}
    by_name = p.operators_sorted("name")
    assert [r["op"] for r in by_name] == sorted(r["op"] for r in by_name)


def test_profile_dataframes_and_trace_file(tmp_path):
    pandas = pytest.importorskip("pandas")
    p = symbolite.load(MODELS / "nested.ptl").profile(*inputs("nested/valid_0"), memory=True)
    ops = p.dataframe("operators")
    assert isinstance(ops, pandas.DataFrame) and len(ops) == len(p.operators)
    assert {"op", "count", "total_ns", "bytes_allocated"} <= set(ops.columns)
    modules = p.dataframe("modules")
    assert list(modules["path"]) == [r["path"] for r in p.modules]
    p.write_chrome_trace(tmp_path / "trace.json")
    assert json.loads((tmp_path / "trace.json").read_text()) == p.chrome_trace
    with pytest.raises(ValueError):
        p.dataframe("frames")


def test_profile_usage_errors():
    model = symbolite.load(MODELS / "nested.ptl")
    args = inputs("nested/valid_0")
    with pytest.raises(symbolite.Error, match="needs flops=True"):
        model.profile(*args, sort="flops")
    with pytest.raises(symbolite.Error, match="runs must be at least 1"):
        model.profile(*args, runs=0)
    with pytest.raises(symbolite.Error, match="no method 'nope'"):
        model.profile(*args, method="nope")
    with pytest.raises(symbolite.Error, match="unknown sort key"):
        model.profile(*args, sort="fastest")


def test_a_failing_profile_raises_the_models_error():
    case = CASES["nested/broadcast_three_deep"]
    with pytest.raises(RuntimeError) as caught:
        symbolite.load(MODELS / "nested.ptl").profile(*inputs(case["dir"]))
    assert caught.value.module_hierarchy == case["module_hierarchy"]


@pytest.fixture(scope="module")
def split_nested(tmp_path_factory):
    d = tmp_path_factory.mktemp("split")
    summary = symbolite.split(MODELS / "nested.ptl", d / "s.ptl", d / "s.symdbg")
    return d, summary


def test_split_equals_the_clis(split_nested, tmp_path):
    d, ours = split_nested
    theirs = cli_json("split", MODELS / "nested.ptl", "--out", tmp_path / "c.ptl", "--debug", tmp_path / "c.symdbg")
    assert ours["model_id"] == theirs["model_id"]
    assert ours["stripped_size"] == theirs["stripped"]["size"] == (d / "s.ptl").stat().st_size
    assert ours["sidecar_size"] == theirs["sidecar"]["size"] == (d / "s.symdbg").stat().st_size
    assert (d / "s.ptl").read_bytes() == (tmp_path / "c.ptl").read_bytes()
    assert (d / "s.symdbg").read_bytes() == (tmp_path / "c.symdbg").read_bytes()


def test_split_refuses_to_overwrite_its_input(tmp_path):
    copy = tmp_path / "m.ptl"
    copy.write_bytes((MODELS / "nested.ptl").read_bytes())
    with pytest.raises(symbolite.Error, match="three different files"):
        symbolite.split(copy, copy, tmp_path / "m.symdbg")
    assert copy.read_bytes() == (MODELS / "nested.ptl").read_bytes()
    assert not (tmp_path / "m.symdbg").exists()
    with pytest.raises(symbolite.Error) as nodebug:
        symbolite.split(MODELS / "nested_stripped.ptl", tmp_path / "a.ptl", tmp_path / "a.symdbg")
    assert nodebug.value.kind and not (tmp_path / "a.ptl").exists()


def test_a_stripped_model_with_its_sidecar_fails_as_pytorch_does(split_nested):
    d, summary = split_nested
    case = CASES["nested/broadcast_three_deep"]
    alone = symbolite.load(d / "s.ptl")
    assert not alone.has_call_stacks and alone.model_id == summary["model_id"]
    with pytest.raises(RuntimeError) as bare:
        alone.run(*inputs(case["dir"]))
    assert bare.value.module_hierarchy is None and isinstance(bare.value.debug_handle, int)
    assert bare.value.model_id == summary["model_id"]

    model = symbolite.load(d / "s.ptl", debug=d / "s.symdbg")
    assert model.has_call_stacks
    with pytest.raises(RuntimeError) as caught:
        model.run(*inputs(case["dir"]))
    assert caught.value.module_hierarchy == case["module_hierarchy"]
    assert caught.value.traceback.rstrip() == case["traceback"].rstrip()
    assert caught.value.debug_handle == bare.value.debug_handle
    full = symbolite.load(MODELS / "nested.ptl").profile(*inputs("nested/valid_0"))
    stripped = model.profile(*inputs("nested/valid_0"))
    assert [r["path"] for r in stripped.modules] == [r["path"] for r in full.modules]


def test_a_sidecar_of_another_model_is_refused(split_nested, tmp_path):
    d, _ = split_nested
    symbolite.split(MODELS / "lstm.ptl", tmp_path / "o.ptl", tmp_path / "o.symdbg")
    with pytest.raises(symbolite.Error, match="belongs to model") as caught:
        symbolite.load(d / "s.ptl", debug=tmp_path / "o.symdbg")
    assert caught.value.kind == "model error"


def test_debug_info_symbolicates_logs_as_the_cli_does(split_nested):
    d, summary = split_nested
    log = ("boot\nRuntimeError: ... (debug handle 28); model id x\n"
           "  Debug info for handle(s): debug_handles:{30, 28, 9999}, was not found.\n"
           "retry: debug handle 28\n")
    info = symbolite.open_debug_info(d / "s.symdbg")
    assert info.model_id == summary["model_id"]
    ours = [s.to_dict() for s in info.symbolicate_log(log)]
    theirs = cli_json("symbolicate", "--debug", d / "s.symdbg", "-", stdin=log, exit_code=1)["results"]
    assert ours == theirs
    assert [(s["handle"], s["log_line"], s["mentions"]) for s in ours] == [(28, 2, 3), (30, 3, 1), (9999, 3, 1)]
    assert info.symbolicate_log("nothing here") == []
    # The model's own debug info answers the same.
    assert [s.to_dict() for s in symbolite.open_debug_info(MODELS / "nested.ptl").symbolicate([28, 30])] == \
        [s.to_dict() for s in info.symbolicate([28, 30])]


def test_delegate_node_handles_symbolicate_as_the_cli_does():
    model = MODELS / "delegated.ptl"
    handles = list(range(0, 80))
    ours = [s.to_dict() for s in symbolite.open_debug_info(model).symbolicate(handles)]
    r = subprocess.run([cli_path(), "symbolicate", str(model), *map(str, handles), "--json"],
                       capture_output=True, text=True)
    theirs = json.loads(r.stdout)["results"]
    assert ours == theirs
    assert any(any("a delegate node of" in n for n in s["notes"]) for s in ours)


def test_the_thread_setting_is_process_wide_and_checked():
    model = symbolite.load(MODELS / "nested.ptl")
    args = inputs("nested/valid_0")
    before = symbolite.threads()
    try:
        symbolite.set_threads(1)
        assert symbolite.threads() == 1
        one = model.run(*args)
        symbolite.set_threads(3)
        assert symbolite.threads() == 3
        np.testing.assert_array_equal(model.run(*args), one)
        with pytest.raises(ValueError):
            symbolite.set_threads(-1)
    finally:
        symbolite.set_threads(before)
