"""Loading series from files and folders (Qt-free).

``load(path)`` reads a file or a whole folder (recursively, in sorted order). A malformed file in a
folder is recorded in ``Dataset.problems`` and the other files still load; a malformed single file
raises :class:`~segview.core.errors.DataFormatError`.
"""
from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

from ..errors import DataFormatError, SegviewError
from ..model import Series
from .csv_series import LabelsFileError
from .readers import NotSeriesFile, Reader, all_readers, reader_for

__all__ = ["Dataset", "load", "load_file", "all_readers", "Reader"]


@dataclass
class Dataset(Sequence[Series]):
    """Loaded series plus what could not be loaded.

    Attributes:
        series: the series, in file order.
        problems: one DataFormatError per file that failed (folder loads only).
        label_files: labels tables found beside the series (e.g. ``labels.csv``).
    """

    series: list[Series] = field(default_factory=list)
    problems: list[DataFormatError] = field(default_factory=list)
    label_files: list[Path] = field(default_factory=list)

    @overload
    def __getitem__(self, i: int) -> Series: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Series]: ...
    def __getitem__(self, i):  # type: ignore[no-untyped-def]
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


def load_file(path: str | os.PathLike[str]) -> list[Series]:
    """Read one file with the reader its extension and content select."""
    p = Path(path)
    if not p.exists():
        raise DataFormatError(str(p), "no such file or folder")
    if p.is_dir():
        raise DataFormatError(str(p), "is a folder; use load()")
    reader = reader_for(p)
    try:
        return reader.read(p)
    except SegviewError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError, MemoryError, csv.Error, UnicodeError) as err:
        # A reader met content it did not expect: the file is malformed for that format. Say so
        # with the file's name instead of letting one file take down a whole folder or run.
        detail = str(err) or type(err).__name__
        if len(detail) > 200:
            detail = detail[:200] + "..."
        raise DataFormatError(str(p), f"is not a valid {reader.name} file ({type(err).__name__}: "
                                      f"{detail})") from err


def _known_extensions() -> set[str]:
    return {e for r in all_readers() for e in r.extensions}


def _folder_files(folder: Path) -> list[Path]:
    exts = _known_extensions()
    files = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        files += [Path(root) / n for n in sorted(names)
                  if not n.startswith(".") and Path(n).suffix.lower() in exts]
    return files


def load(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> Dataset:
    """Load series from a file, a folder, or several of either.

    Raises:
        DataFormatError: a named single file is malformed, or a path does not exist. Problems inside
            folders are collected in ``Dataset.problems`` instead.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    ds = Dataset()
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise DataFormatError(str(p), "no such file or folder")
        if p.is_dir():
            for f in _folder_files(p):
                try:
                    ds.series.extend(load_file(f))
                except LabelsFileError:
                    ds.label_files.append(f)
                except NotSeriesFile:
                    continue  # export metadata, annotations and the like sit beside series
                except DataFormatError as err:
                    ds.problems.append(err)
        else:
            try:
                ds.series.extend(load_file(p))
            except LabelsFileError:
                ds.label_files.append(p)
    _check_unique_ids(ds)
    return ds


def _check_unique_ids(ds: Dataset) -> None:
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
            s = Series(s.values, s.x, new_id, s.metadata)
        renamed.append(s)
    ds.series = renamed
