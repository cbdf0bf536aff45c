"""Loading series from files and folders (Qt-free).

``load(path)`` reads a file or a whole folder (recursively, in sorted order). A malformed file in a
folder is recorded in ``Dataset.problems`` and the other files still load; a malformed single file
raises :class:`~segview.core.errors.DataFormatError`.

Two kinds of folders are more than their files:

* a **segview export** (a labeled dataset written by ``segview session export``), recognised by its
  manifest ``metadata.json`` (:func:`segview.core.io.export_folder.is_export_folder`): its series,
  aggregated labels, judgments and adjudications are read with the manifest's file list and hashes;
* a **TCPD folder**: an ``annotations.json`` beside (or above) the dataset files gives each
  annotator's change points per dataset name (``Dataset.annotations``).
"""
from __future__ import annotations

import csv
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from ..context import NULL_CONTEXT, RunContext
from ..errors import DataFormatError, SegviewError
from ..benchmark import Benchmark, group as group_benchmarks, harness_warmup as _apply_warmup
from ..model import Series
from .csv_series import LabelsFileError
from .readers import NotSeriesFile, Reader, all_readers, opened, reader_for, stat_existing

__all__ = ["Dataset", "load", "load_file", "all_readers", "Reader"]


@dataclass
class Dataset(Sequence[Series]):
    """Loaded series plus what could not be loaded.

    Attributes:
        series: the series, in file order.
        problems: one DataFormatError per file that failed (folder loads only).
        label_files: labels tables found beside the series (e.g. ``labels.csv``).
        annotations: change points per series id and annotator (TCPD ``annotations.json``, or the
            judges' lists of a change-point export); an empty list = looked, no change.
        annotation_files: the ``annotations.json`` files read.
        labels: aggregated steady-state labels per series id from a segview export
            (:class:`~segview.core.io.labels_csv.LabelRow`).
        exports: the segview export folders read
            (:class:`~segview.core.io.export_folder.ExportedDataset`, with judgments).
    """

    series: list[Series] = field(default_factory=list)
    problems: list[DataFormatError] = field(default_factory=list)
    label_files: list[Path] = field(default_factory=list)
    annotations: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    annotation_files: list[Path] = field(default_factory=list)
    labels: dict[str, Any] = field(default_factory=dict)
    exports: list[Any] = field(default_factory=list)

    @overload
    def __getitem__(self, i: int) -> Series: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Series]: ...
    def __getitem__(self, i):
        return self.series[i]

    def __len__(self) -> int:
        return len(self.series)

    def __iter__(self) -> Iterator[Series]:
        return iter(self.series)

    def by_id(self, series_id: str) -> Series:
        for s in self.series:
            if s.id == series_id:
                return s
        raise KeyError(series_id)

    def extend(self, other: "Dataset") -> None:
        self.series.extend(other.series)
        self.problems.extend(other.problems)
        self.label_files.extend(other.label_files)
        self.annotations.update(other.annotations)
        self.annotation_files.extend(other.annotation_files)
        self.labels.update(other.labels)
        self.exports.extend(other.exports)

    def benchmarks(self) -> "list[Benchmark]":
        """The series grouped into benchmarks (:func:`segview.core.benchmark.group`): a harness's
        process executions stay together; a series without benchmark metadata is a benchmark of
        its own with one execution."""
        return group_benchmarks(self.series)

    def change_point_truth(self) -> dict[str, dict[str, list[int]]]:
        """``annotations`` restricted to the loaded series (what evaluation scores against)."""
        ids = {s.id for s in self.series}
        return {k: v for k, v in self.annotations.items() if k in ids}


def load_file(path: str | os.PathLike[str], **options: Any) -> list[Series]:
    """Read one file with the reader its extension and content select.

    ``options`` go to readers that declare them (``fill_missing="linear"`` for TCPD gaps); an
    option no reader of this file takes is ignored.
    """
    p = path if isinstance(path, Path) else Path(path)
    st = stat_existing(p)
    if st is None:
        raise DataFormatError(str(p), "no such file or folder")
    if stat.S_ISDIR(st.st_mode):
        raise DataFormatError(str(p), "is a folder; use load()")
    with opened(p, st):  # one stat and (a small file) one read for sniffing and reading
        return _read_with(reader_for(p), p, options)


def _read_with(reader: Reader, p: Path, options: dict[str, Any]) -> list[Series]:
    try:
        return reader.read(p, **{k: v for k, v in options.items()
                                 if k in reader.options and v is not None})
    except SegviewError:
        raise
    except MemoryError:
        # the machine's limit, not a malformed file: say so (a folder load records it and goes on)
        size = p.stat().st_size / 2**20
        raise DataFormatError(str(p), f"out of memory while reading this {size:.0f} MB file "
                                      "(split it, or free memory)") from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError, csv.Error, UnicodeError) as err:
        # A reader met content it did not expect: the file is malformed for that format. Say so
        # with the file's name instead of letting one file take down a whole folder or run.
        detail = str(err) or type(err).__name__
        if len(detail) > 200:
            detail = detail[:200] + "..."
        raise DataFormatError(str(p), f"is not a valid {reader.name} file ({type(err).__name__}: "
                                      f"{detail})") from err


def _known_extensions() -> set[str]:
    return {e for r in all_readers() for e in r.extensions}


ANNOTATIONS_FILE = "annotations.json"


def _is_export(folder: Path) -> bool:
    from .export_folder import is_export_folder
    return is_export_folder(folder)


def _folder_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """Series files (sorted, recursive) and the segview export folders met on the way."""
    exts = _known_extensions()
    files: list[Path] = []
    exports: list[Path] = []
    for root, dirs, names in os.walk(folder):
        here = Path(root)
        if _is_export(here):
            exports.append(here)
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        # the suffix test on the names themselves (Path(n).suffix, less a Path per name)
        files += map(here.joinpath, [n for n in sorted(names) if not n.startswith(".")
                                     and _suffix(n) in exts])
    return files, exports


def _suffix(name: str) -> str:
    """``Path(name).suffix.lower()`` for a plain file name (no folder part)."""
    i = name.rfind(".")
    return name[i:].lower() if 0 < i < len(name) - 1 else ""


def _add_annotations(ds: Dataset, path: Path) -> None:
    from .tcpd_json import read_annotations
    ds.annotations.update(read_annotations(path))
    ds.annotation_files.append(path)


def _add_export(ds: Dataset, folder: Path) -> None:
    from .export_folder import read_export
    exp = read_export(folder)
    ds.series.extend(exp.series)
    ds.exports.append(exp)
    ds.labels.update(exp.label_rows())
    ds.annotations.update(exp.annotations())
    if (folder / "labels.csv").is_file():
        ds.label_files.append(folder / "labels.csv")


def load(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
         fill_missing: str | None = None, harness_warmup: str = "keep",
         ctx: RunContext | None = None, columns: Any = None,
         remembered_columns: bool = True) -> Dataset:
    """Load series from a file, a folder, or several of either.

    Args:
        fill_missing: how to fill missing values of formats that have them (TCPD ``null``):
            None (default) reports them as errors; ``"linear"`` or ``"previous"`` fill them
            (see :data:`segview.core.io.tcpd_json.FILL_RULES`).
        harness_warmup: the iterations a harness itself recorded as warm-up (JMH's warm-up
            iterations, pyperf's warmups...): ``"keep"`` (default: kept in the values, marked by
            each series' ``warmup`` metadata) or ``"drop"`` (only measured iterations;
            ``warmup_dropped`` records how many were dropped). See :mod:`segview.core.benchmark`.
        ctx: progress (the fraction of files read, with the file's name) and cancellation,
            checked between files; a background load in the explorer passes one.
        columns: a column mapping (:class:`~segview.core.io.columns.ColumnMapping` or a
            ``"bench=...,exec=...,value=..."`` string) for CSV/TSV tables: a file named here is
            read with it; in a folder, the tables whose header has the mapping's columns are.
        remembered_columns: without ``columns``, a table in a folder that has a remembered
            mapping (:func:`~segview.core.io.columns.remember_mapping`) and the mapping's
            columns is read with it (its series' metadata say ``columns_source: remembered``).

    Raises:
        DataFormatError: a named single file is malformed, or a path does not exist. Problems inside
            folders are collected in ``Dataset.problems`` instead. A segview export folder named
            as a path whose manifest is malformed or whose files changed since export is an error
            too; a bad export met inside a named folder is one more entry of ``problems``.
        Cancelled: ``ctx`` was cancelled (nothing is returned).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = list(paths)
    ctx = ctx or NULL_CONTEXT
    if harness_warmup not in ("keep", "drop"):
        raise DataFormatError("harness_warmup", f"must be 'keep' or 'drop', got {harness_warmup!r}")
    ds = Dataset()
    opts: dict[str, Any] = {"fill_missing": fill_missing}
    read = _table_reader(columns, remembered_columns)
    for i, raw in enumerate(paths):
        ctx.check()
        p = Path(raw)
        if not p.exists():
            raise DataFormatError(str(p), "no such file or folder")
        if p.is_dir():
            files, exports = _folder_files(p)
            for folder in exports:
                ctx.check()
                try:
                    _add_export(ds, folder)
                except DataFormatError as err:
                    if folder == p:  # the export itself was named: it is the whole input
                        raise
                    ds.problems.append(err)  # one bad export beside others: the rest loads
            for k, f in enumerate(files):
                ctx.check()
                what = f"file {k + 1} of {len(files)}: {f.name}"
                ctx.progress((i + k / len(files)) / len(paths), what)
                opts["ctx"] = ctx.part((i + k / len(files)) / len(paths),
                                       (i + (k + 1) / len(files)) / len(paths), what)
                if f.name == ANNOTATIONS_FILE:
                    try:
                        _add_annotations(ds, f)
                    except DataFormatError as err:
                        ds.problems.append(err)
                    continue
                try:
                    with opened(f):
                        ds.series.extend(read(f, False, opts))
                except LabelsFileError:
                    ds.label_files.append(f)
                except NotSeriesFile:
                    continue  # export metadata, results and the like sit beside series
                except DataFormatError as err:
                    ds.problems.append(err)
        elif p.name == ANNOTATIONS_FILE:
            _add_annotations(ds, p)
        else:
            ctx.progress(i / len(paths), f"reading {p.name}")
            opts["ctx"] = ctx.part(i / len(paths), (i + 1) / len(paths), f"reading {p.name}")
            try:
                ds.series.extend(read(p, True, opts))
            except LabelsFileError:
                ds.label_files.append(p)
            _nearby_annotations(ds, p)
    ctx.check()
    if harness_warmup != "keep":
        ds.series = _apply_warmup(ds.series, harness_warmup)
    _check_unique_ids(ds)
    ctx.progress(1.0, f"{len(ds.series)} series read")
    return ds


def _table_reader(columns: Any, remembered: bool) -> Any:
    """``read(path, named, opts)``: a file through the column mapping when one applies (the given
    ``columns``, or the one remembered for its folder), else through its reader."""
    from . import columns as cols

    mapping = cols.as_mapping(columns) if columns is not None else None
    stored = cols.remembered_mappings() if mapping is None and remembered else {}

    def read(path: Path, named: bool, opts: dict[str, Any]) -> list[Series]:
        if mapping is not None:
            if named or (path.suffix.lower() in cols.TABLE_EXTENSIONS
                         and cols.fits(mapping, cols.header_of(path, mapping.delimiter) or [])):
                return cols.read_mapped(path, mapping)
        elif stored:
            found = cols.mapping_for(path, stored)
            if found is not None:
                return cols.read_mapped(path, found, source="remembered")
        return load_file(path, **opts)

    return read


def _nearby_annotations(ds: Dataset, path: Path) -> None:
    """A TCPD dataset file opened on its own: ``annotations.json`` beside it or up to two levels
    up (TCPD's ``datasets/NAME/NAME.json`` layout) gives its annotations."""
    if not ds.series or ds.series[-1].metadata.get("format") != "tcpd":
        return
    for folder in list(path.resolve().parents)[:3]:
        cand = folder / ANNOTATIONS_FILE
        if cand.is_file() and cand not in ds.annotation_files:
            try:
                found = read_annotations_for(cand, {s.id for s in ds.series})
            except DataFormatError:
                return
            if found:
                ds.annotations.update(found)
                ds.annotation_files.append(cand)
            return


def read_annotations_for(path: Path, ids: set[str]) -> dict[str, dict[str, list[int]]]:
    from .tcpd_json import read_annotations
    return {k: v for k, v in read_annotations(path).items() if k in ids}


def _check_unique_ids(ds: Dataset) -> None:
    ids = [s.id for s in ds.series]
    if len(set(ids)) == len(ids):
        return  # the usual case, decided in one C-level pass
    seen: dict[str, int] = {}
    for s in ds.series:
        seen[s.id] = seen.get(s.id, 0) + 1
    dups = [k for k, v in seen.items() if v > 1]
    if not dups:
        return
    counters: dict[str, int] = {}
    renamed = []
    for s in ds.series:
        if s.id in dups:
            k = counters.get(s.id, 0)
            counters[s.id] = k + 1
            src = Path(str(s.metadata.get("source", ""))).parent.name
            new_id = f"{src}/{s.id}" if src and k > 0 else (s.id if k == 0 else f"{s.id}#{k}")
            s = Series(s.values, s.x, new_id, s.metadata, s.dims or None)
        renamed.append(s)
    ds.series = renamed
