"""CSV cells that a spreadsheet would run as formulas are written escaped, and read back exactly.

A series id, judge name or note starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
is a formula to Excel, LibreOffice and Google Sheets (CSV injection). segview writes such a text cell
with a leading apostrophe, which spreadsheets show as plain text, and every segview reader removes
it again. The rule is a bijection on strings: a cell is escaped when it starts with one of those
characters, or with an apostrophe followed by one of them or by another apostrophe; unescaping
removes one leading apostrophe exactly in the second case. Numbers (``-1``, ``-0.5``) are never
touched.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def escape_cell(value: Any) -> Any:
    """``value`` as a CSV cell a spreadsheet shows as text (non-strings are returned unchanged)."""
    if not isinstance(value, str) or not value:
        return value
    head = value[0]
    risky = head in _FORMULA or (head == "'" and len(value) > 1 and value[1] in (*_FORMULA, "'"))
    if risky and not _is_number(value):
        return "'" + value
    return value


def unescape_cell(value: Any) -> Any:
    """The inverse of :func:`escape_cell`."""
    if isinstance(value, str) and len(value) > 1 and value[0] == "'" and value[1] in (*_FORMULA, "'"):
        return value[1:]
    return value


def escape_row(cells: Iterable[Any]) -> list[Any]:
    return [escape_cell(c) for c in cells]


def escape_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: escape_cell(v) for k, v in row.items()}


def unescape_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: unescape_cell(v) for k, v in row.items()}


class _Writer:
    def __init__(self, inner: Any, escape: Any) -> None:
        self._inner, self._escape = inner, escape

    def writeheader(self) -> None:
        self._inner.writeheader()

    def writerow(self, row: Any) -> Any:
        return self._inner.writerow(self._escape(row))

    def writerows(self, rows: Iterable[Any]) -> None:
        for row in rows:
            self.writerow(row)


def writer(fh: Any, **kwargs: Any) -> _Writer:
    """``csv.writer`` whose rows are escaped cell by cell."""
    import csv

    return _Writer(csv.writer(fh, **kwargs), escape_row)


def dict_writer(fh: Any, fieldnames: Any, **kwargs: Any) -> _Writer:
    """``csv.DictWriter`` whose rows are escaped cell by cell."""
    import csv

    return _Writer(csv.DictWriter(fh, fieldnames=fieldnames, **kwargs), escape_dict)


class DictReader:
    """``csv.DictReader`` giving unescaped cells (keeps ``line_num`` and ``fieldnames``)."""

    def __init__(self, fh: Any, **kwargs: Any) -> None:
        import csv

        self._inner = csv.DictReader(fh, **kwargs)

    @property
    def fieldnames(self) -> Any:
        names = self._inner.fieldnames
        return None if names is None else [unescape_cell(n) for n in names]

    @fieldnames.setter
    def fieldnames(self, names: Any) -> None:
        self._inner.fieldnames = names

    @property
    def line_num(self) -> int:
        return self._inner.line_num

    def __iter__(self) -> "DictReader":
        return self

    def __next__(self) -> dict[str, Any]:
        return unescape_dict(next(self._inner))
