"""warmup_stats' CSV input format (softdevteam/warmup_stats, README "CSV format" and
``bin/csv_to_krun_json``; checked against warmup_stats at commit 41212e0, 2023)::

    process_exec_idx,bench_name,0,1,2,...
    0,spectral norm,0.2,0.1,0.4,...
    1,spectral norm,0.3,0.15,0.2,...

The first row is a header whose column *names* are free (warmup_stats only keeps their order): the
first column is the process execution index, the second the benchmark name, and each further column
one in-process iteration, a time in **seconds**. A row whose first iteration cell is ``crash`` (the
convention of ``csv_to_krun_json``) or whose iteration cells are all empty is a crashed process
execution: a named :class:`~segview.core.errors.DataFormatWarning`, no series, its index kept as a gap.
The format has no harness warm-up (``warmup=0``): warm-up is what an analysis finds. Cells may be
followed by spaces (the README's example). A last line without its newline (a file still being
written) that is shorter than the header is left out with a warning.

Series: one per row, benchmark ``bench_name``, execution ``process_exec_idx``, unit ``s``, lower is
better; id ``bench_name/execK``.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
import re

import numpy as np

from ..benchmark import LOWER, execution
from ..errors import DataFormatError
from ..model import Series
from .loadwarn import report
from .readers import read_text

_INT = re.compile(r"^\s*\d+\s*$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in next(csv.reader([line], skipinitialspace=True), [])]


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def sniff(head: str) -> bool:
    """A header whose columns from the third on are numbered ``0, 1, 2, ...``, or whose first two
    name a process execution and a benchmark; then a row ``int, name, number/crash, ...``."""
    lines = [ln for ln in head.splitlines() if ln.strip()]
    if len(lines) < 2:
        return False
    header, first = _cells(lines[0]), _cells(lines[1])
    if len(header) < 3 or len(first) < 3:
        return False
    numbered = header[2:] == [str(k) for k in range(len(header) - 2)]
    named = ("exec" in header[0].lower() or "process" in header[0].lower()) and \
        "bench" in header[1].lower()
    if not (numbered or named):
        return False
    return bool(_INT.match(first[0])) and not _is_float(first[1]) and \
        (first[2] == "crash" or _is_float(first[2]) or first[2] == "")


def read(path: Path) -> list[Series]:
    """Read a warmup_stats CSV file (see the module docstring).

    Raises:
        DataFormatError: a bad header, index or value (names the line and column).
    """
    path = Path(path)
    text = read_text(path)
    lines = text.split("\n")
    cut = lines.pop() if lines else ""  # text after the last newline: a line still being written
    rows = list(csv.reader(io.StringIO("\n".join(lines)), skipinitialspace=True))
    numbered = [(k + 1, r) for k, r in enumerate(rows) if any(c.strip() for c in r)]
    if not numbered:
        raise DataFormatError(str(path), "the file is empty")
    _, header = numbered[0]
    if len(header) < 3:
        raise DataFormatError(str(path), "the header has fewer than 3 columns; warmup_stats CSV is "
                              "'process_exec_idx, bench_name, 0, 1, ...'", "line 1")
    n_iter = len(header) - 2
    pending: list[tuple[str, str, str]] = []
    if cut.strip():
        tail = next(csv.reader([cut], skipinitialspace=True), [])
        if len(tail) < len(header):
            pending.append(("", f"the last line has {max(len(tail) - 2, 0)} of {n_iter} iterations "
                            "and no newline (the file is still being written?); it is left out",
                            f"line {len(lines) + 1}"))
        else:
            numbered.append((len(lines) + 1, tail))
    out: list[Series] = []
    seen: dict[tuple[str, int], int] = {}
    for lineno, row in numbered[1:]:
        where = f"line {lineno}"
        cells = [c.strip() for c in row]
        if len(cells) < 2 or not _INT.match(cells[0]):
            raise DataFormatError(str(path), f"the first column must be the process execution "
                                  f"index (an integer), got {cells[0] if cells else ''!r}", where)
        index, bench = int(cells[0]), cells[1]
        if not bench:
            raise DataFormatError(str(path), "the benchmark name (second column) is empty", where)
        if (bench, index) in seen:
            raise DataFormatError(str(path), f"process execution {index} of {bench!r} appears "
                                  f"twice (lines {seen[bench, index]} and {lineno})", where)
        seen[bench, index] = lineno
        its = cells[2:]
        while its and its[-1] == "":
            its.pop()  # trailing empty cells (a spreadsheet's export)
        if not its or its[0] == "crash":
            pending.append((bench, f"process execution {index} of {bench!r} crashed (its row "
                            f"holds {'crash' if its else 'no iterations'}); it is left out", where))
            continue
        if len(its) > n_iter:
            raise DataFormatError(str(path), f"{len(its)} iterations for {n_iter} iteration "
                                  "columns in the header", where)
        try:
            values = np.array([float(c) for c in its], dtype=np.float64)
        except ValueError:
            bad = next(j for j, c in enumerate(its) if not _is_float(c))
            raise DataFormatError(str(path), f"{its[bad]!r} is not a time in seconds",
                                  f"{where}, column {bad + 3}") from None
        if not np.isfinite(values).all():
            bad = int(np.flatnonzero(~np.isfinite(values))[0])
            raise DataFormatError(str(path), f"{its[bad]!r} is not a finite time",
                                  f"{where}, column {bad + 3}")
        meta = {"source": str(path), "format": "warmup-stats", "line": lineno}
        if len(its) < n_iter:
            meta["iterations_missing"] = n_iter - len(its)
            pending.append((bench, f"process execution {index} of {bench!r} has {len(its)} of the "
                            f"header's {n_iter} iterations", where))
        out.append(execution(values, benchmark=bench, index=index, harness="warmup_stats",
                             unit="s", direction=LOWER, metadata=meta))
    if not out:
        raise DataFormatError(str(path), "no process execution with iterations (every row crashed "
                              "or the file holds only its header)")
    for bench, reason, where in pending:
        report(out, bench or None, str(path), reason, where)
    return out
