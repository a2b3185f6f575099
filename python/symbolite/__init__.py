"""symbolite from Python: run TorchScript lite-interpreter models (``.ptl``) without PyTorch,
and turn debug handles into the model's module hierarchy and source.

>>> import numpy as np, symbolite
>>> m = symbolite.load("model.ptl")
>>> out = m.run(np.ones((2, 4), np.float32), np.ones((2, 4), np.float32))
>>> m.method("direct")(x, y)                  # another method of the top module
>>> s = symbolite.symbolicate("model.ptl", [28])[0]
>>> print(s.module_hierarchy); print(s.traceback)
>>> symbolite.find_handles(open("crash.log").read())

A failure inside a model raises the model's own exception class mixed with
:class:`ModelError` (``.debug_handle``, ``.module_hierarchy``, ``.traceback``); any other
failure (a damaged file, a missing method) raises :class:`Error`.
"""

import json as _json
from os import PathLike
from typing import Any, Callable, Dict, Iterable, List, Union

from . import _symbolite
from ._errors import ModelError
from ._symbolite import Error

__all__ = ["Error", "ModelError", "Model", "Symbolication", "load", "symbolicate",
           "find_handles", "__version__"]
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

    def run(self, *args: Any) -> Any:
        """Runs ``forward``."""
        return self._core.run_method("forward", *args)

    def method(self, name: str) -> Callable[..., Any]:
        """The method ``name`` of the top module, as a callable."""
        if name not in self._core.methods:
            raise Error(f"{self.path}: the model has no method '{name}' "
                        f"(methods: {', '.join(self._core.methods)})")
        return lambda *args: self._core.run_method(name, *args)

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


def load(path: Union[str, PathLike]) -> Model:
    """Loads and verifies a ``.ptl`` model for running."""
    return Model(_symbolite.load(str(path)))


def symbolicate(path: Union[str, PathLike], handles: Union[int, Iterable[int]]) -> List[Symbolication]:
    """Symbolicates debug handles with a model's debug info (``.ptl``) or a split model's
    sidecar (``.symdbg``). ``handles``: an int or a list of ints. Returns a list of
    :class:`Symbolication`, one per handle, in order."""
    if isinstance(handles, int):
        handles = [handles]
    return [Symbolication(s) for s in _json.loads(_symbolite.symbolicate_json(str(path), list(handles)))]


def find_handles(text: str) -> List[int]:
    """The debug handles mentioned in free text (a crash log, an exception message), in order
    of appearance: PyTorch's ``debug_handles:{12, 13}`` and ``debug handle 12`` forms."""
    return [h for mention in _symbolite.find_handles(text) for h in mention["handles"]]
