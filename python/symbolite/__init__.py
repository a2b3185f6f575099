"""symbolite from Python: run TorchScript lite-interpreter models (``.ptl``) without PyTorch,
and turn debug handles into the model's module hierarchy and source.

>>> import numpy as np, symbolite
>>> m = symbolite.load("model.ptl")
>>> out = m.run(np.ones((2, 4), np.float32), np.ones((2, 4), np.float32))
>>> m.method("direct")(x, y)                  # another method of the top module
>>> s = symbolite.symbolicate("model.ptl", [28])[0]
>>> print(s.module_hierarchy); print(s.traceback)
>>> symbolite.find_handles(open("crash.log").read())
>>> p = m.profile(x, y, flops=True)            # p.operators, p.modules, p.chrome_trace, p.folded
>>> symbolite.split("model.ptl", "stripped.ptl", "model.symdbg")
>>> m = symbolite.load("stripped.ptl", debug="model.symdbg")   # failures keep their story
>>> d = symbolite.open_debug_info("model.symdbg")             # many handles, one open
>>> d.symbolicate_log(crash_report_text)

A failure inside a model raises the model's own exception class mixed with
:class:`ModelError` (``.debug_handle``, ``.module_hierarchy``, ``.traceback``); any other
failure (a damaged file, a missing method) raises :class:`Error`.
"""

import json as _json
from os import PathLike
from typing import Any, Callable, Dict, Iterable, List, Union

from . import _symbolite
from ._errors import ModelError
from ._profile import Profile, profile as _profile
from ._symbolite import Error

__all__ = ["Error", "ModelError", "Model", "Profile", "Symbolication", "DebugInfo", "load",
           "symbolicate", "open_debug_info", "find_handles", "split", "threads", "set_threads",
           "__version__"]
__version__ = _symbolite.version()


class Model:
    """A loaded model. Arguments are numpy arrays (or anything with ``__array__``, such as a
    torch.Tensor), bool, int, float, str, None, and lists, tuples and dicts of them; results
    come back the same way, tensors as numpy arrays. Runs release the GIL, so threads can run
    one model at once."""

    def __init__(self, core: "_symbolite.Model"):
        self._core = core

    @property
    def path(self) -> str:
        """The file the model was loaded from."""
        return self._core.path

    @property
    def methods(self) -> List[str]:
        """Names of the top module's methods, sorted."""
        return list(self._core.methods)

    @property
    def model_id(self) -> str:
        """The model id (32 hex digits), shared by a model, its stripped model and sidecar."""
        return self._core.model_id

    @property
    def has_call_stacks(self) -> bool:
        """Whether failures and profiles get module hierarchies and tracebacks (False for a
        stripped model loaded without its sidecar)."""
        return self._core.has_call_stacks

    def run(self, *args: Any) -> Any:
        """Runs ``forward``."""
        return self._core.run_method("forward", *args)

    def method(self, name: str) -> Callable[..., Any]:
        """The method ``name`` of the top module, as a callable."""
        if name not in self._core.methods:
            raise Error(f"{self.path}: the model has no method '{name}' "
                        f"(methods: {', '.join(self._core.methods)})")
        return lambda *args: self._core.run_method(name, *args)

    def profile(self, *args: Any, method: str = "forward", runs: int = 1, warmup: int = 1,
                shapes: bool = False, flops: bool = False, memory: bool = False,
                sort: str = "total") -> Profile:
        """Runs ``method`` ``warmup`` times, then ``runs`` times with the profiler on, and
        returns the :class:`Profile`. ``shapes``, ``flops``, ``memory`` record input shapes,
        floating-point operations and tensor memory per operator, as ``symbolite profile
        --shapes --flops --memory`` do; ``sort`` orders :attr:`Profile.operators`."""
        if method not in self._core.methods:
            self.method(method)  # raises Error naming the methods there are
        return _profile(self._core, args, method, runs, warmup, shapes, flops, memory, sort)

    def __repr__(self):
        return f"<symbolite.Model {self.path!r} methods={self.methods}>"


class Symbolication:
    """Where a debug handle points: ``handle``, ``status`` (ok, partial, not_found), ``op``,
    ``function``, ``instruction``, ``module_hierarchy``, ``traceback``, ``frames`` (dicts with
    function, file, line, column, highlight) and ``notes``; the fields of ``symbolite
    symbolicate --json`` (docs/CLI.md)."""

    handle: int
    status: str
    op: Union[str, None]
    function: Union[str, None]
    instruction: Union[int, None]
    module_hierarchy: Union[str, None]
    traceback: Union[str, None]
    frames: List[Dict[str, Any]]
    notes: List[str]

    def __init__(self, fields: Dict[str, Any]):
        self.__dict__.update(fields)
        self._fields = fields

    def to_dict(self) -> Dict[str, Any]:
        """The fields as a dict (the CLI's JSON object)."""
        return dict(self._fields)

    def __repr__(self):
        return f"<symbolite.Symbolication handle={self.handle} {self.module_hierarchy or self.status}>"


class DebugInfo:
    """A model's debug info (``.ptl``) or a split model's sidecar (``.symdbg``), opened once
    for any number of symbolications; safe to share between threads."""

    def __init__(self, core: "_symbolite.DebugInfo"):
        self._core = core

    @property
    def path(self) -> str:
        return self._core.path

    @property
    def model_id(self) -> str:
        """The id of the model the debug info belongs to (32 hex digits): what symbolite's run
        errors print as ``model id ...`` and ``symbolite split --json`` as ``model_id``."""
        return self._core.model_id

    def symbolicate(self, handles: Union[int, Iterable[int]]) -> List[Symbolication]:
        """One :class:`Symbolication` per handle, in order."""
        if isinstance(handles, int):
            handles = [handles]
        return [Symbolication(s) for s in _json.loads(self._core.symbolicate_json(list(handles)))]

    def symbolicate_log(self, text: str) -> List[Symbolication]:
        """Every handle ``text`` (a crash log) mentions, once, in order of first mention, each
        with ``log_line`` and ``mentions``: what ``symbolite symbolicate --debug SIDECAR -
        --json`` gives for the text on stdin. Empty when the text mentions no handle."""
        return [Symbolication(s) for s in _json.loads(self._core.symbolicate_log_json(text))]

    def __repr__(self):
        return f"<symbolite.DebugInfo {self.path!r} model_id={self.model_id}>"


def load(path: Union[str, PathLike], debug: Union[str, PathLike, None] = None) -> Model:
    """Loads and verifies a ``.ptl`` model for running. ``debug``: the sidecar of a stripped
    model (from :func:`split`), so that its failures and profiles carry module hierarchies and
    tracebacks; it must belong to the model (same model id)."""
    return Model(_symbolite.load(str(path), None if debug is None else str(debug)))


def open_debug_info(path: Union[str, PathLike]) -> DebugInfo:
    """Opens a model's debug info (``.ptl``) or a sidecar (``.symdbg``) once, for many
    symbolications (a crash-report pipeline keeps one per model version)."""
    return DebugInfo(_symbolite.open_debug_info(str(path)))


def symbolicate(path: Union[str, PathLike], handles: Union[int, Iterable[int]]) -> List[Symbolication]:
    """Symbolicates debug handles with a model's debug info (``.ptl``) or a split model's
    sidecar (``.symdbg``). ``handles``: an int or a list of ints. Returns a list of
    :class:`Symbolication`, one per handle, in order."""
    return open_debug_info(path).symbolicate(handles)


def split(model: Union[str, PathLike], out: Union[str, PathLike], debug: Union[str, PathLike]) -> Dict[str, Any]:
    """Writes a stripped model ``out`` (no source, no call stacks; PyTorch still loads and runs
    it) and its sidecar ``debug`` (``.symdbg``), as ``symbolite split`` does; both or neither
    are written. Returns ``model_id``, ``model_size``, ``stripped_size``, ``sidecar_size``,
    ``removed_records``, ``debug_record_bytes``."""
    return _symbolite.split(str(model), str(out), str(debug))


def threads() -> int:
    """Threads each operator may use (process-wide; default: the machine's hardware threads,
    or the SYMBOLITE_NUM_THREADS environment variable)."""
    return _symbolite.threads()


def set_threads(threads: int) -> None:
    """Sets the threads each operator may use, for every model in the process (``0``: the
    default). Results do not depend on it."""
    if not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads must be a non-negative int, not {threads!r}")
    _symbolite.set_threads(threads)


def find_handles(text: str) -> List[int]:
    """The debug handles mentioned in free text (a crash log, an exception message), in order
    of appearance: PyTorch's ``debug_handles:{12, 13}`` and ``debug handle 12`` forms."""
    return [h for mention in _symbolite.find_handles(text) for h in mention["handles"]]
