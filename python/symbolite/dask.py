"""Fleet-scale symbolication and profile aggregation on Dask.

Crash reports from a fleet of devices are symbolicated against a store of sidecars (the
``.symdbg`` files ``symbolite split`` writes), each worker opening each sidecar once; profiles
of many runs are summed into one module-level table::

    from distributed import Client
    import symbolite.dask as sd

    client = Client("tcp://scheduler:8786")           # or Client() for a local cluster
    store = sd.sidecar_store("/shared/sidecars")        # model id -> sidecar path
    records = sd.symbolicate_reports(sd.read_reports("/shared/crashes/*.log"), store).compute()
    # [{"report": "/shared/crashes/a.log", "model_id": "af71...", "results": [...], "error": None}, ...]

    table = sd.aggregate_profiles(sd.profile_bag("model.ptl", input_tuples))
    sd.to_dataframe(table)                              # with pandas

Every result dict equals one element of ``symbolite symbolicate --debug SIDECAR - --json``'s
``results`` for the report's text on stdin (the CLI is the reference). Nothing is lost: a
report that cannot be symbolicated (no model id, an unknown one, no debug handles, not text,
a sidecar that does not open) comes back as a record with ``error`` set, in its place.

Paths in the store are opened by the workers, so they must name the same files on every
worker (a shared filesystem), and symbolite must be importable there. Dask is imported by
this module only: ``import symbolite`` works without it.
"""

import collections
import os
import re
import threading
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import dask
import dask.bag as db

import symbolite

if TYPE_CHECKING:
    import pandas

__all__ = ["sidecar_store", "find_model_ids", "symbolicate_reports", "read_reports",
           "profile_bag", "aggregate_profiles", "to_dataframe", "cache_stats", "clear_cache"]

#: A crash report: text naming its model id, UTF-8 bytes, or a dict with ``text`` and
#: optionally ``id`` (what the record's ``report`` field says) and ``model_id``.
Report = Union[str, bytes, Mapping[str, Any]]
#: A module-level profile table: one dict per module path (``aggregate_profiles``).
ModuleTable = List[Dict[str, Any]]

# ---------------------------------------------------------------------------------------------
# The per-process cache. A worker process keeps every sidecar and model it has opened, so a
# fleet's millions of reports cost one open per sidecar per worker, not one per report.

_lock = threading.Lock()
_debug_infos: Dict[str, Any] = {}         # path -> symbolite.DebugInfo or _OpenFailure
_models: Dict[Tuple[str, Optional[str]], Any] = {}   # (path, sidecar) -> symbolite.Model
_opened: Dict[str, collections.Counter] = {"debug_info": collections.Counter(),
                                           "models": collections.Counter()}


class _OpenFailure:
    """A sidecar that did not open: kept so a bad file is tried once per process, not once
    per report naming it."""

    def __init__(self, message: str):
        self.message = message


def _debug_info(path: str) -> Any:
    """The DebugInfo for ``path``, opened on first use in this process (or the failure)."""
    with _lock:  # opening takes well under a millisecond; one lock keeps it simple
        entry = _debug_infos.get(path)
        if entry is None:
            _opened["debug_info"][path] += 1
            try:
                entry = symbolite.open_debug_info(path)
            except Exception as e:  # noqa: BLE001 -- any failure becomes the reports' error
                entry = _OpenFailure(str(e) or type(e).__name__)
            _debug_infos[path] = entry
        return entry


def _model(path: str, debug: Optional[str]) -> "symbolite.Model":
    """The model at ``path`` (with the sidecar ``debug`` attached), loaded once per process."""
    key = (path, debug)
    with _lock:
        model = _models.get(key)
        if model is None:
            _opened["models"][path if debug is None else f"{path} (debug {debug})"] += 1
            # Failures propagate: a model that does not load fails the profile, as it should.
            model = symbolite.load(path) if debug is None else symbolite.load(path, debug=debug)
            _models[key] = model
        return model


def cache_stats() -> Dict[str, Dict[str, int]]:
    """How many times this process opened each sidecar (``"debug_info"``, by path) and loaded
    each model (``"models"``). Ask every worker with ``client.run(symbolite.dask.cache_stats)``:
    each count is 1 unless :func:`clear_cache` ran in between."""
    with _lock:
        return {kind: dict(counts) for kind, counts in _opened.items()}


def clear_cache() -> None:
    """Forgets this process's open sidecars, loaded models and failed opens (a sidecar fixed
    or replaced on disk is reopened); on every worker: ``client.run(symbolite.dask.clear_cache)``."""
    with _lock:
        _debug_infos.clear()
        _models.clear()
        for counts in _opened.values():
            counts.clear()


# ---------------------------------------------------------------------------------------------
# The sidecar store.

def sidecar_store(source: Union[str, PathLike, Iterable[Union[str, PathLike]]]) -> Dict[str, str]:
    """Model id -> sidecar path, for :func:`symbolicate_reports`.

    ``source`` is a directory (every ``*.symdbg`` beneath it, recursively) or a list of files
    (sidecars, or ``.ptl`` models that carry their debug info). Each file is opened once here to
    read its model id; paths are made absolute, since workers open them from their own working
    directory. Raises ``ValueError`` naming both files when two have the same model id, and
    :class:`symbolite.Error` naming the file when one does not open."""
    if isinstance(source, (str, PathLike)) and Path(source).is_dir():
        paths = sorted(Path(source).rglob("*.symdbg"))
    elif isinstance(source, (str, PathLike)):
        paths = [Path(source)]
    else:
        paths = [Path(p) for p in source]
    store: Dict[str, str] = {}
    for path in paths:
        absolute = os.path.abspath(path)
        model_id = symbolite.open_debug_info(absolute).model_id
        if model_id in store:
            raise ValueError(f"{store[model_id]} and {absolute} are both sidecars of model "
                             f"{model_id}: keep one")
        store[model_id] = absolute
    return store


# ---------------------------------------------------------------------------------------------
# Symbolicating reports.

# "model id <hex>" (symbolite's run errors), "model_id: <hex>", "model_id=<hex>" and JSON's
# "model_id": "<hex>", not followed by more hex digits. (Starting with a literal lets the regex
# engine skip ahead; a lookbehind for the word boundary made it 15x slower.)
_MODEL_ID = re.compile(r"model[ _]id[\"']?[ \t]*[:=]?[ \t]*[\"']?([0-9a-fA-F]{32})(?![0-9a-fA-F])")


def find_model_ids(text: str) -> List[str]:
    """The distinct model ids ``text`` names (lowercase, in order of first mention): symbolite's
    ``model id <32 hex digits>`` and ``model_id: <hex>`` / ``model_id=<hex>`` lines."""
    return list(dict.fromkeys(
        m.group(1).lower() for m in _MODEL_ID.finditer(text)
        # not the tail of a longer name (symbolite_model_id, remodel id)
        if m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")))


def _record(report: Any, model_id: Optional[str], results: List[Dict[str, Any]],
            error: Optional[str]) -> Dict[str, Any]:
    return {"report": report, "model_id": model_id, "results": results, "error": error}


# The result fields repeated, for a handle, in every report that mentions it.
_SHARED_FIELDS = ("traceback", "module_hierarchy", "function", "op")


def _symbolicate_one(index: Any, report: Any, store: Mapping[str, str], opened: Dict[str, Any],
                     shared: Dict[str, str]) -> Dict[str, Any]:
    """One report's record. Never raises: whatever goes wrong is the record's error."""
    report_id: Any = index
    model_id: Optional[str] = None
    try:
        text: Any = report
        if isinstance(report, Mapping):
            report_id = report["id"] if report.get("id") is not None else index
            model_id = report.get("model_id")
            if report.get("error") is not None:  # e.g. read_reports could not read the file
                return _record(report_id, model_id, [], str(report["error"]))
            if "text" not in report:
                return _record(report_id, model_id, [], "the report has no 'text'")
            text = report["text"]
        if isinstance(text, (bytes, bytearray, memoryview)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as e:
                return _record(report_id, model_id, [], f"the report is not UTF-8 text: {e}")
        if not isinstance(text, str):
            return _record(report_id, model_id, [],
                           f"the report is not text but {type(text).__name__}: give a str, UTF-8 "
                           "bytes or a dict with 'text'")
        if model_id is None:
            ids = find_model_ids(text)
            if not ids:
                return _record(report_id, None, [],
                               "no model id in the report (looked for 'model id <32 hex digits>', "
                               "'model_id: <hex>' and 'model_id=<hex>'): give its model_id")
            if len(ids) > 1:
                return _record(report_id, None, [],
                               f"the report names {len(ids)} model ids ({', '.join(ids)}): give "
                               "the one its handles belong to as model_id")
            model_id = ids[0]
        model_id = str(model_id).lower()
        path = store.get(model_id)
        if path is None:
            return _record(report_id, model_id, [],
                           f"model id {model_id} is not in the sidecar store ({len(store)} "
                           "sidecars)")
        info = opened.get(path)
        if info is None:
            info = opened[path] = _debug_info(path)
        if isinstance(info, _OpenFailure):
            return _record(report_id, model_id, [], f"the sidecar of model {model_id} does not "
                                                    f"open: {info.message}")
        if info.model_id != model_id:  # a hand-made store pointing at the wrong file
            return _record(report_id, model_id, [],
                           f"the store's sidecar {path} for model {model_id} is model "
                           f"{info.model_id}")
        try:
            results = [s.to_dict() for s in info.symbolicate_log(text)]
        except TypeError:
            text.encode("utf-8")  # a lone surrogate: raises the UnicodeEncodeError naming it
            raise
        if not results:
            return _record(report_id, model_id, [],
                           "no debug handles found in the report (looked for "
                           "'debug_handles:{N, ...}' and 'debug handle N')")
        # Equal strings become one object: pickle then sends a traceback once per partition,
        # not once per report naming its handle (bench_dask's records: 61 MB instead of 109).
        for result in results:
            for key in _SHARED_FIELDS:
                value = result.get(key)
                if value is not None:
                    result[key] = shared.setdefault(value, value)
        return _record(report_id, model_id, results, None)
    except UnicodeEncodeError as e:
        return _record(report_id, model_id, [], f"the report is not valid text: {e}")
    except Exception as e:  # noqa: BLE001 -- one bad report must not fail the fleet's batch
        return _record(report_id, model_id, [], f"{type(e).__name__}: {e}")


def _symbolicate_partition(reports: Iterable[Any], store: Mapping[str, str], first_index: int = 0,
                           partition: Optional[int] = None) -> List[Dict[str, Any]]:
    """Records of one partition's reports. A report without an id is named by its index
    (``first_index`` + its place), or, in partition ``partition`` of a bag, ``"partition:place"``."""
    # The process-wide cache is consulted once per sidecar per partition; the partition's other
    # reports find the sidecar in this dict, without the lock.
    opened: Dict[str, Any] = {}
    shared: Dict[str, str] = {}
    return [_symbolicate_one(first_index + place if partition is None else f"{partition}:{place}",
                             report, store, opened, shared)
            for place, report in enumerate(reports)]


def symbolicate_reports(reports: Union[Sequence[Report], db.Bag], store: Mapping[str, str], *,
                        npartitions: int = 64, partition_size: Optional[int] = None) -> db.Bag:
    """A Dask bag of one record per report, in the reports' order::

        {"report": <the report's id, or its index>, "model_id": str | None,
         "results": [<one dict per handle, as the CLI's JSON results>], "error": None | str}

    ``reports`` is a list, split into ``npartitions`` partitions (or partitions of
    ``partition_size`` reports), or a Dask bag, e.g. from :func:`read_reports`. A report is
    text naming its model id (symbolite's ``model id <hex>``, or a ``model_id: <hex>`` /
    ``model_id=<hex>`` line), UTF-8 bytes, or a dict ``{"id": ..., "model_id": ..., "text":
    ...}`` (``id`` and ``model_id`` optional; a given ``model_id`` wins over the text's).
    A report without an id is named by its index in the list; in a bag, where numbering would
    need every partition's length before any work starts, by ``"<partition>:<place>"``.
    ``store`` maps model ids to sidecars (:func:`sidecar_store`).

    ``results`` is exactly ``symbolite symbolicate --debug SIDECAR - --json``'s ``results`` for
    the text on stdin: each handle once, at its first mention, with ``log_line`` and
    ``mentions``; handles the sidecar lacks are results with status ``not_found``, not errors.
    ``error`` says why a report has no results: no model id or several, an id the store lacks,
    no debug handles, not text, a sidecar that does not open.

    ``.compute()`` runs it (on the active ``distributed.Client``, if any) and gives the list;
    ``.map(json.dumps).to_textfiles("out/*.jsonl")`` has the workers write the records."""
    store_key = dask.delayed(dict(store), pure=True)  # one graph key, however many partitions
    if isinstance(reports, db.Bag):
        parts = [dask.delayed(_symbolicate_partition)(part, store_key, 0, k)
                 for k, part in enumerate(reports.to_delayed())]
    else:
        reports = list(reports)
        size = partition_size or max(1, -(-len(reports) // max(1, npartitions)))
        parts = [dask.delayed(_symbolicate_partition)(reports[first:first + size], store_key, first)
                 for first in range(0, len(reports), size)] or [dask.delayed([])]
    return db.from_delayed(parts)


def _read_report(file: Any) -> Dict[str, Any]:
    try:
        with file as f:
            return {"id": file.path, "text": f.read()}
    except OSError as e:
        return {"id": file.path, "text": None, "error": f"cannot read {file.path}: {e}"}


def read_reports(urlpath: Union[str, Sequence[str]], *, files_per_partition: int = 100) -> db.Bag:
    """A bag of reports, one per file, read on the workers: ``{"id": path, "text": bytes}``.

    ``urlpath`` is a glob (``/shared/crashes/*.log``), a list of paths, or any URL fsspec opens
    (``s3://bucket/crashes/*.log`` with s3fs installed on every worker). A file that cannot be
    read becomes a record with its error."""
    import fsspec  # a dependency of dask

    files = fsspec.open_files(urlpath, mode="rb")
    return db.from_sequence(list(files), partition_size=max(1, files_per_partition)).map(_read_report)


# ---------------------------------------------------------------------------------------------
# Profiles.

_SUMMED = ("inclusive_ns", "exclusive_ns", "ops", "flops", "bytes_allocated")


def _profile_partition(inputs: Iterable[Any], model: str, debug: Optional[str],
                       options: Dict[str, Any]) -> List[ModuleTable]:
    m = _model(model, debug)
    tables = []
    for args in inputs:
        profile = m.profile(*(args if isinstance(args, tuple) else (args,)), **options)
        tables.append(_rows_of(profile))
    return tables


def profile_bag(model: Union[str, PathLike], inputs: Union[Sequence[Any], db.Bag], *,
                debug: Optional[Union[str, PathLike]] = None, method: str = "forward",
                runs: int = 1, warmup: int = 1, flops: bool = False, memory: bool = False,
                npartitions: int = 64) -> db.Bag:
    """Profiles ``model`` on the workers once per input set: a bag of module tables, one per
    item of ``inputs`` (each ``Model.profile(...).modules`` with ``runs`` in every row), for
    :func:`aggregate_profiles`.

    Each item of ``inputs`` (a list, or a Dask bag) is a tuple of arguments for ``method`` —
    numpy arrays and whatever else ``Model.run`` takes; anything that is not a tuple is the one
    argument. ``model`` is loaded once per worker process; a stripped model is attributed to
    its modules with its sidecar given as ``debug``. A list is split into ``npartitions``
    partitions. A run that fails raises its ``symbolite.ModelError`` from the computation."""
    if not isinstance(inputs, db.Bag):
        inputs = list(inputs)
        inputs = db.from_sequence(inputs, npartitions=max(1, min(npartitions, len(inputs))))
    options = {"method": method, "runs": runs, "warmup": warmup, "flops": flops, "memory": memory}
    return inputs.map_partitions(_profile_partition, os.path.abspath(model),
                                 None if debug is None else os.path.abspath(debug), options)


def _rows_of(profile: Any) -> ModuleTable:
    """A module table from a ``symbolite.Profile`` (its runs in each row) or a list of rows."""
    rows = getattr(profile, "modules", None)
    if rows is None:
        return list(profile)
    runs = getattr(profile, "runs", 1)
    return [dict(row, runs=row.get("runs", runs)) for row in rows]


def _combine(tables: Iterable[Any]) -> ModuleTable:
    """Sums module tables by module path. A row without ``runs`` counts as one run."""
    merged: Dict[str, Dict[str, Any]] = {}
    for table in tables:
        for row in _rows_of(table):
            into = merged.get(row["path"])
            if into is None:
                into = merged[row["path"]] = {"path": row["path"], "module": row.get("module"),
                                              "depth": row.get("depth"), "runs": 0}
            into["runs"] += row.get("runs", 1)
            for key in _SUMMED:
                if row.get(key) is not None:
                    into[key] = into.get(key, 0) + row[key]
    # Shares are of the top module a row is under (tables of several models may be combined).
    tops = {r["path"]: r.get("inclusive_ns", 0) for r in merged.values() if r.get("depth") == 0}
    for row in merged.values():
        for key in _SUMMED:
            if key in row:
                row[f"mean_{key}"] = row[key] / row["runs"]
        total = next((t for top, t in tops.items()
                      if row["path"] == top or row["path"].startswith(top + ".")), 0)
        row["percent"] = 100.0 * row.get("inclusive_ns", 0) / total if total else 0.0
    return sorted(merged.values(), key=lambda r: (-r.get("inclusive_ns", 0), r["path"]))


def aggregate_profiles(profiles: Union[Iterable[Any], db.Bag]) -> ModuleTable:
    """One module-level table from many profiles: a list of dicts sorted by inclusive time,
    largest first, one per module path::

        {"path": "top(Nested).level1(Level1)", "module": "level1(Level1)", "depth": 1,
         "runs": 200, "inclusive_ns": ..., "exclusive_ns": ..., "ops": ...,
         "flops": ..., "bytes_allocated": ...,          # when the profiles have them
         "mean_inclusive_ns": ..., "mean_exclusive_ns": ..., "mean_ops": ..., ...,
         "percent": ...}                                # of the top module's inclusive time

    Sums are over every profiled run; ``runs`` counts the runs whose profile has the module
    (every run of one model, unless a branch skips it), and each ``mean_*`` is per such run.

    ``profiles`` is a Dask bag of module tables (:func:`profile_bag`; summed on the workers,
    only partial tables travel) or an iterable of ``symbolite.Profile`` objects, lists of
    ``Profile.modules`` rows (one run each unless a row says ``runs``) and tables this
    function returned (so tables combine again)."""
    if isinstance(profiles, db.Bag):
        return profiles.reduction(_combine, _combine).compute()
    return _combine(profiles)


def to_dataframe(table: ModuleTable) -> "pandas.DataFrame":
    """The table as a pandas DataFrame indexed by module path (pandas must be installed)."""
    import pandas

    return pandas.DataFrame(table).set_index("path")
