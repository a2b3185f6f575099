"""The Python module against PyTorch 1.13: the same models and inputs give PyTorch's outputs
and errors, and handles from PyTorch's own exceptions symbolicate. Run by ctest
(python.pytest) with PYTHONPATH at the build tree's python/ and SYMBOLITE_CLI at the CLI."""

import builtins
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pytest

import symbolite

torch = pytest.importorskip("torch")  # the reference every test compares with
from torch import Tensor  # noqa: E402
from torch.jit.mobile import _load_for_lite_interpreter  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
MODELS = FIXTURES / "models"
MANIFEST = json.loads((FIXTURES / "run" / "manifest.json").read_text())


def case_inputs(case):
    return [np.load(FIXTURES / "run" / case["dir"] / name) for name in case["inputs"]]


NESTED_CASES = [c for c in MANIFEST if c["model"] == "nested.ptl"
                and all(name.endswith(".npy") for name in c["inputs"])]


@pytest.mark.parametrize("case", [c for c in NESTED_CASES if "outputs" in c], ids=lambda c: c["dir"])
def test_runs_give_pytorchs_outputs(case):
    model = symbolite.load(MODELS / case["model"])
    got = model.method(case["method"])(*case_inputs(case))
    want = np.load(FIXTURES / "run" / case["dir"] / case["outputs"][0])
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", [c for c in NESTED_CASES if "error_type" in c], ids=lambda c: c["dir"])
def test_failures_carry_pytorchs_module_hierarchy_and_traceback(case):
    model = symbolite.load(MODELS / case["model"])
    with pytest.raises(symbolite.ModelError) as caught:
        model.method(case["method"])(*case_inputs(case))
    error = caught.value
    assert isinstance(error, getattr(builtins, case["error_type"]))
    assert error.model_message == case["message"]
    assert error.module_hierarchy == case["module_hierarchy"]
    assert error.traceback.rstrip() == case["traceback"].rstrip()
    assert isinstance(error.debug_handle, int)


# A model with container arguments and results, and one that raises ValueError, made here
# by PyTorch and run by both.
class Containers(torch.nn.Module):
    def forward(self, d: Dict[str, Tensor], t: Tuple[int, float], xs: List[Tensor], name: str):
        total = torch.zeros(2)
        for k in d.keys():
            total = total + d[k]
        for x in xs:
            total = total * x
        if name == "bad":
            raise ValueError("a bad name: " + name)
        return {"total": total, "scaled": total * t[1] + t[0]}, (t[0] + 1, name), [total.sum()]


@pytest.fixture(scope="module")
def containers_model(tmp_path_factory):
    scripted = torch.jit.script(Containers())
    path = tmp_path_factory.mktemp("py") / "containers.ptl"
    scripted._c._save_for_mobile(str(path), {}, True)
    return path, _load_for_lite_interpreter(str(path))


def test_containers_in_and_out_match_pytorch(containers_model):
    path, reference = containers_model
    d = {"b": np.array([1.0, 2.0], np.float32), "a": np.array([0.5, -1.0], np.float32)}
    xs = [np.array([2.0, 3.0], np.float32)]
    got = symbolite.load(path).run(d, (3, 0.5), xs, "ok")
    want = reference({k: torch.from_numpy(v) for k, v in d.items()}, (3, 0.5),
                     [torch.from_numpy(x) for x in xs], "ok")
    assert isinstance(got, tuple) and isinstance(got[0], dict) and isinstance(got[2], list)
    assert set(got[0]) == set(want[0])
    for key in want[0]:
        np.testing.assert_allclose(got[0][key], want[0][key].numpy(), rtol=1e-6)
    assert got[1] == want[1]
    np.testing.assert_allclose(got[2][0], want[2][0].numpy(), rtol=1e-6)
    # torch tensors go in through __array__.
    again = symbolite.load(path).run({k: torch.from_numpy(v) for k, v in d.items()}, (3, 0.5),
                                     [torch.from_numpy(x) for x in xs], "ok")
    np.testing.assert_allclose(again[0]["total"], got[0]["total"])


def test_a_models_value_error_is_a_value_error(containers_model):
    path, reference = containers_model
    args = ({"a": np.zeros(2, np.float32)}, (1, 1.0), [np.ones(2, np.float32)], "bad")
    with pytest.raises(Exception) as theirs:
        reference({"a": torch.zeros(2)}, (1, 1.0), [torch.ones(2)], "bad")
    with pytest.raises(ValueError) as ours:
        symbolite.load(path).run(*args)
    assert isinstance(ours.value, symbolite.ModelError)
    assert ours.value.model_message == "a bad name: bad"
    assert "a bad name: bad" in str(theirs.value)
    assert ours.value.module_hierarchy.startswith("top(Containers)::forward")
    assert 'raise ValueError("a bad name: " + name)' in ours.value.traceback


def test_symbolicate_equals_the_cli(tmp_path):
    cli = os.environ.get("SYMBOLITE_CLI")
    if not cli:
        pytest.skip("SYMBOLITE_CLI not set")
    model = MODELS / "nested.ptl"
    handles = [5, 28, 9999]
    ours = [s.to_dict() for s in symbolite.symbolicate(model, handles)]
    theirs = json.loads(subprocess.run([cli, "symbolicate", str(model), *map(str, handles), "--json"],
                                       capture_output=True, text=True).stdout)["results"]
    assert ours == theirs
    assert symbolite.symbolicate(model, 28)[0].module_hierarchy == \
        "top(Nested)::forward.level1(Level1)::forward.level2(Level2)::forward.aten::add"


def test_a_pytorch_exception_on_a_stripped_model_symbolicates_with_the_sidecar(tmp_path):
    cli = os.environ.get("SYMBOLITE_CLI")
    if not cli:
        pytest.skip("SYMBOLITE_CLI not set")
    stripped, sidecar = tmp_path / "stripped.ptl", tmp_path / "nested.symdbg"
    subprocess.run([cli, "split", str(MODELS / "nested.ptl"), "--out", str(stripped),
                    "--debug", str(sidecar)], check=True, capture_output=True)
    case = next(c for c in NESTED_CASES if c["dir"] == "nested/broadcast_three_deep")
    with pytest.raises(Exception) as caught:
        _load_for_lite_interpreter(str(stripped))(*[torch.from_numpy(a) for a in case_inputs(case)])
    handles = symbolite.find_handles(str(caught.value))
    assert len(handles) == 1
    where = symbolite.symbolicate(sidecar, handles)[0]
    assert where.module_hierarchy == case["module_hierarchy"]
    assert where.traceback.rstrip() == case["traceback"].rstrip()


def test_find_handles_reads_pytorchs_forms():
    text = "x\n  Debug info for handle(s): debug_handles:{12, 13}, was not found.\ndebug handle 7\n"
    assert symbolite.find_handles(text) == [12, 13, 7]


def test_bad_inputs_are_symbolite_errors(tmp_path):
    with pytest.raises(symbolite.Error) as missing:
        symbolite.load(tmp_path / "missing.ptl")
    assert "missing.ptl" in str(missing.value) and missing.value.kind
    model = symbolite.load(MODELS / "nested.ptl")
    with pytest.raises(symbolite.Error):
        model.method("no_such_method")
    with pytest.raises(symbolite.Error, match="no TorchScript counterpart"):
        model.run(np.zeros(2, np.complex64), np.zeros(2, np.float32))
    with pytest.raises(symbolite.Error, match="cannot pass a value of type object"):
        model.run(object(), 1)
    assert not isinstance(missing.value, symbolite.ModelError)


def test_threads_share_one_model():
    model = symbolite.load(MODELS / "nested.ptl")
    case = next(c for c in NESTED_CASES if c["dir"] == "nested/valid_0")
    want = np.load(FIXTURES / "run" / case["dir"] / case["outputs"][0])
    results = [None] * 8

    def work(i):
        results[i] = model.run(*case_inputs(case))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in results:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_version_is_the_clis():
    cli = os.environ.get("SYMBOLITE_CLI")
    if not cli:
        pytest.skip("SYMBOLITE_CLI not set")
    out = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout.strip()
    assert out == f"symbolite {symbolite.__version__}"
