"""Profiles of model runs from Python (:meth:`symbolite.Model.profile`)."""

import json
from os import PathLike
from typing import Any, Dict, List, Union

from . import _symbolite
from ._symbolite import Error


class Profile:
    """The operators a profiled run executed, attributed to the model's modules through its
    debug info — the views ``symbolite profile`` prints, as Python objects:

    - :attr:`operators`: one dict per operator (``op``, ``count``, ``total_ns``, ``self_ns``,
      ``percent``; ``input_shapes`` with ``shapes=True``, ``flops`` with ``flops=True``,
      ``bytes_allocated`` / ``bytes_freed`` with ``memory=True``), slowest first;
    - :attr:`modules`: one dict per module, depth first from the top (``path``, ``module``,
      ``depth``, ``inclusive_ns``, ``exclusive_ns``, ``ops``; ``flops``, ``bytes_allocated``);
      :attr:`module_tree` is the same as nested dicts;
    - :attr:`chrome_trace` (a dict, Perfetto / chrome://tracing JSON) and :attr:`folded`
      (folded stacks for flame-graph tools);
    - :meth:`dataframe` for either table as a pandas DataFrame.

    Times are summed over all profiled runs (:attr:`runs`).
    """

    def __init__(self, core: "_symbolite.ProfileResult", details: int, sort: str = "total"):
        self._core = core
        self._details = details  # the _symbolite.DETAIL_* bits it was recorded with
        self._cache: Dict[str, Any] = {"operators": self.operators_sorted(sort)}

    def _view(self, name: str, make):
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    @property
    def runs(self) -> int:
        """Profiled runs (warm-up runs are not counted)."""
        return self._core.runs

    @property
    def method(self) -> str:
        return self._core.method

    @property
    def events(self) -> int:
        """Operator calls recorded, over all profiled runs."""
        return self._core.events

    @property
    def has_call_stacks(self) -> bool:
        """False for a stripped model loaded without its sidecar: everything is then
        attributed to the top module."""
        return self._core.has_call_stacks

    @property
    def operators(self) -> List[Dict[str, Any]]:
        """The operator table in the order ``sort`` asked for, slowest first by default (a row
        per operator and input shapes when the profile was taken with ``shapes=True``)."""
        return self._cache["operators"]

    def operators_sorted(self, sort: str = "total", by_input_shapes: Union[bool, None] = None,
                         group_by: str = "overload") -> List[Dict[str, Any]]:
        """The operator table in another order: ``total``, ``self``, ``count``, ``name``,
        ``flops`` or ``memory``; ``by_input_shapes`` (default: whether shapes were recorded)
        gives a row per operator and input shapes; ``group_by="name"`` a row per operator
        name without its overload (``aten::add``), as torch.profiler names operators."""
        if group_by not in ("overload", "name"):
            raise ValueError(f"group_by must be 'overload' or 'name', not {group_by!r}")
        if by_input_shapes is None:
            by_input_shapes = bool(self._details & _symbolite.DETAIL_SHAPES)
        return json.loads(self._core.operators_json(sort, by_input_shapes, group_by == "name"))

    @property
    def module_tree(self) -> Dict[str, Any]:
        """The module tree: ``module``, ``inclusive_ns``, ``exclusive_ns``, ``ops``,
        ``children``."""
        return self._view("module_tree", lambda: json.loads(self._core.module_tree_json()))

    @property
    def modules(self) -> List[Dict[str, Any]]:
        """The module tree as rows, depth first; ``path`` joins the labels from the top with
        dots, as PyTorch prints module hierarchies: ``top(Net).layer1(Sequential)``."""
        def rows():
            out = []

            def visit(node, parent, depth):
                path = node["module"] if parent is None else f"{parent}.{node['module']}"
                row = {"path": path, "module": node["module"], "depth": depth}
                row.update({k: v for k, v in node.items() if k not in ("children", "module")})
                out.append(row)
                for child in node["children"]:
                    visit(child, path, depth + 1)

            visit(self.module_tree, None, 0)
            return out

        return self._view("modules", rows)

    @property
    def chrome_trace(self) -> Dict[str, Any]:
        """The Chrome trace (Trace Event Format) as a dict."""
        return self._view("trace", lambda: json.loads(self._core.chrome_trace_json()))

    def write_chrome_trace(self, path: Union[str, PathLike]) -> None:
        """Writes the Chrome trace to ``path`` (open it in https://ui.perfetto.dev)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self._core.chrome_trace_json())

    @property
    def folded(self) -> str:
        """Folded stacks, one line per module path and operator with its microseconds:
        ``top(Net);layer1(Sequential);aten::conv2d 1234``."""
        return self._view("folded", self._core.folded_stacks)

    def dataframe(self, table: str = "operators"):
        """``operators`` or ``modules`` as a pandas DataFrame (needs pandas)."""
        if table not in ("operators", "modules"):
            raise ValueError(f"table must be 'operators' or 'modules', not {table!r}")
        try:
            import pandas
        except ImportError as e:
            raise ImportError("Profile.dataframe needs pandas (Debian: python3-pandas); the "
                              "tables are also lists of dicts: Profile.operators, Profile.modules") from e
        return pandas.DataFrame(getattr(self, table))

    def __repr__(self):
        return f"<symbolite.Profile {self.method} runs={self.runs} events={self.events}>"


def details(shapes: bool, flops: bool, memory: bool) -> int:
    """The profiler's detail bits for these switches."""
    return ((_symbolite.DETAIL_SHAPES if shapes else 0) | (_symbolite.DETAIL_FLOPS if flops else 0)
            | (_symbolite.DETAIL_MEMORY if memory else 0))


def profile(core_model, args, method: str, runs: int, warmup: int, shapes: bool, flops: bool,
            memory: bool, sort: str) -> Profile:
    if sort == "flops" and not flops:
        raise Error("sort='flops' needs flops=True")
    if sort == "memory" and not memory:
        raise Error("sort='memory' needs memory=True")
    bits = details(shapes, flops, memory)
    return Profile(core_model.profile(method, runs, warmup, bits, *args), bits, sort)
