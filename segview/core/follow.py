"""Follow one series in a file that is still being written (``segview watch``).

:class:`SeriesFollower` returns, on each :meth:`~SeriesFollower.poll`, the measurements appended
since the previous poll, and whether the series is complete. Formats:

* JSON (``.json``, or text starting with ``[``): a fork list ``[[x0, x1, ...], ...]``, a flat list,
  or JMH's ``-rf json`` result file (``primaryMetric.rawData``). A partially written file is read
  up to its last complete number (:func:`parse_partial_json`); a fork is complete when its ``]``
  has been written.
* JMH's console output (``.log``/``.out``, or text with JMH's markers, e.g.
  ``java -jar benchmarks.jar ... | tee run.log``): the measurement
  ``Iteration N: value unit`` lines of one fork (``benchmark[params]/forkK``); the fork is complete
  when the next fork, benchmark or the result summary begins. Warm-up iterations and JMH's warm-up
  forks are skipped; the lines are parsed by :mod:`segview.core.io.jmh_log` (the reader's parser).
* CSV (anything else): one value per line (with or without a header), a wide table (one column per
  series; a blank cell ends a series) or a long table ``series_id,index,value`` with each series'
  rows in index order. Only lines ending in a newline are read; the file is read from where the
  previous poll stopped, so a poll costs O(new bytes).

Series selection (``series``): a 0-based position among the file's series, or a name (a fork id
``stem/forkK``/``forkK``/``benchmark[params]/forkK``, a CSV column or ``series_id``). By default
the follower locks onto the last series present when data first appears (the one being written).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .errors import DataFormatError
from .io.jmh_log import JmhLogParser, sniff as sniff_jmh_log

_TOKEN = re.compile(r'\s*(?:([\[\]{},:])|("(?:[^"\\]|\\.)*")|'
                    r'(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(true|false|null|NaN|-?Infinity))')
_NUMBER_PREFIX = re.compile(r'-?\d*(?:\.\d*)?(?:[eE][-+]?\d*)?')
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")
_LITERAL_VALUES = {"true": True, "false": False, "null": None, "NaN": math.nan,
                   "Infinity": math.inf, "-Infinity": -math.inf}




class PartialList(list):
    """A JSON array read from a possibly unfinished file; ``closed`` once its ``]`` was read."""

    closed = False


class PartialDict(dict):
    """A JSON object read from a possibly unfinished file; ``closed`` once its ``}`` was read."""

    closed = False


def _incomplete_tail(rest: str) -> bool:
    """Whether ``rest`` (no token matched there) can be the start of a token still being written."""
    rest = rest.lstrip()
    if not rest or rest[0] == '"':
        return True
    if _NUMBER_PREFIX.fullmatch(rest):
        return True
    return any(lit.startswith(rest) for lit in _LITERALS)


def parse_partial_json(text: str, where: str = "JSON") -> Any:
    """Parse the complete part of a JSON text that may be cut anywhere.

    Containers still open at the end are returned with ``closed = False`` (arrays as
    :class:`PartialList`, objects as :class:`PartialDict`); a number or string that reaches the end
    of the text is left out (it may still grow). Returns None when no value has started.

    Raises:
        DataFormatError: the text is not the beginning of JSON (names the character offset).
    """
    root: Any = None
    started = False
    stack: list[Any] = []
    keys: list[Any] = []  # per open object: the pending key (None = expecting a key)
    pos = 0
    n = len(text)

    def attach(value: Any) -> None:
        nonlocal root, started
        if not stack:
            if started:
                raise DataFormatError(where, "a second value after the top-level one",
                                      f"offset {pos}")
            root, started = value, True
            return
        top = stack[-1]
        if isinstance(top, PartialDict):
            if keys[-1] is None:
                raise DataFormatError(where, "an object member without a key", f"offset {pos}")
            top[keys[-1]] = value
            keys[-1] = None
        else:
            top.append(value)

    while pos < n:
        if started and not stack and text[pos:].strip():
            raise DataFormatError(where, "text after the top-level value", f"offset {pos}")
        m = _TOKEN.match(text, pos)
        if m is None:
            if _incomplete_tail(text[pos:]):
                break
            raise DataFormatError(where, f"unexpected text {text[pos:].strip()[:20]!r}",
                                  f"offset {pos}")
        punct, string, number, literal = m.groups()
        if (number is not None or literal is not None) and (
                m.end() == n or text[m.end()] not in ",]} \t\r\n"):
            # may still grow ("1.2" -> "1.25", "1." -> "1.5", "-Inf" -> "-Infinity")
            start = m.start(3 if number is not None else 4)
            if _incomplete_tail(text[start:]):
                break
            raise DataFormatError(where, f"unexpected text {text[start:].strip()[:20]!r}",
                                  f"offset {start}")
        if punct in ("[", "{"):
            container: Any = PartialList() if punct == "[" else PartialDict()
            attach(container)
            stack.append(container)
            keys.append(None)
        elif punct in ("]", "}"):
            want = PartialList if punct == "]" else PartialDict
            if not stack or not isinstance(stack[-1], want):
                raise DataFormatError(where, f"unbalanced {punct!r}", f"offset {m.start(1)}")
            stack.pop().closed = True
            keys.pop()
        elif punct in (",", ":"):
            pass
        elif string is not None:
            import json

            value = json.loads(string)
            if stack and isinstance(stack[-1], PartialDict) and keys[-1] is None:
                keys[-1] = value
            else:
                attach(value)
        elif number is not None:
            attach(float(number) if any(c in number for c in ".eE") else int(number))
        else:
            attach(_LITERAL_VALUES[literal])
        pos = m.end()
    return root


@dataclass
class _Found:
    name: str
    values: list[Any]
    complete: bool


def _forks(root: Any, stem: str) -> list[_Found]:
    """The series of a (partial) JSON document, in file order."""
    if not isinstance(root, list) or not root:
        return []
    if all(isinstance(e, dict) for e in root):
        from .io.jmh_json import _bench_name

        out = []
        for entry in root:
            metric = entry.get("primaryMetric")
            raw = metric.get("rawData") if isinstance(metric, dict) else None
            if not isinstance(raw, list):
                continue
            for k, fork in enumerate(raw):
                if isinstance(fork, list):
                    out.append(_Found(f"{_bench_name(entry)}/fork{k}", fork,
                                      getattr(fork, "closed", True)))
        return out
    if all(isinstance(e, list) for e in root):
        return [_Found(f"{stem}/fork{k}", f, getattr(f, "closed", True))
                for k, f in enumerate(root)]
    return [_Found(stem, root, getattr(root, "closed", True))]


class SeriesFollower:
    """Measurements appended to one series of a growing file (see the module docstring)."""

    def __init__(self, path: str | Path, series: str | int | None = None) -> None:
        self.path = Path(path)
        self.series = series
        self.name: str | None = None  # the series followed, once known
        self.complete = False
        self._taken = 0
        self._json_taken: list[Any] = []
        self._kind: str | None = None
        self._index: int | None = None
        # CSV state
        self._offset = 0
        self._header: list[str] | None = None
        self._delim = ","
        self._column: int | None = None
        self._long: tuple[int, int, int] | None = None
        # JMH log state
        self._log: JmhLogParser | None = None

    # -- public -----------------------------------------------------------------------------

    def poll(self) -> NDArray[np.float64]:
        """The measurements appended since the last poll (possibly none).

        Raises:
            DataFormatError: the file is malformed, shrank or was rewritten, or the series named
                by ``series`` is not in it.
        """
        if self.complete or not self.path.is_file():
            return np.empty(0)
        if self._kind is None:
            self._kind = self._sniff()
            if self._kind is None:
                return np.empty(0)
        if self._kind == "json":
            return self._poll_json()
        if self._kind == "jmhlog":
            return self._poll_log()
        return self._poll_csv()

    # -- helpers ----------------------------------------------------------------------------

    def _sniff(self) -> str | None:
        suffix = self.path.suffix.lower()
        if suffix == ".json":
            return "json"
        if suffix in (".log", ".out"):
            return "jmhlog"  # the JVM may print other lines before JMH's first marker
        if suffix in (".csv", ".tsv"):
            return "csv"
        with self.path.open("rb") as fh:
            head = fh.read(4096).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
        if not head:
            return None
        if head[0] in "[{":
            return "json"
        return "jmhlog" if sniff_jmh_log(head) else "csv"

    def _numbers(self, values: list[Any], start: int) -> NDArray[np.float64]:
        out = np.empty(len(values) - start)
        for i in range(start, len(values)):
            v = values[i]
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise DataFormatError(str(self.path), f"value {v!r} is not a number",
                                      f"series {self.name!r}, index {i}")
            out[i - start] = v
        return out

    def _take(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        self._taken += values.size
        return values

    def _select(self, names: list[str]) -> int | None:
        if not names:
            return None
        if self.series is None:
            return len(names) - 1
        key = str(self.series)
        for i, name in enumerate(names):
            if key == name or name.endswith("/" + key):
                return i
        if key.isdigit():
            return int(key) if int(key) < len(names) else None
        return None

    def _poll_json(self) -> NDArray[np.float64]:
        text = self.path.read_text(encoding="utf-8", errors="replace").lstrip("\ufeff")
        root = parse_partial_json(text, str(self.path))
        found = _forks(root, self.path.stem)
        if self._index is None:
            self._index = self._select([f.name for f in found])
            if self._index is None:
                if self.series is not None and getattr(root, "closed", False):
                    names = ", ".join(f.name for f in found) or "none"
                    raise DataFormatError(str(self.path), f"no series {self.series!r} (it has "
                                                          f"{names})")
                return np.empty(0)
            self.name = found[self._index].name
        # A writer that rewrites the whole file (json.dump of the growing list) leaves it short
        # or empty for a moment: a shorter document is "nothing new yet", different values an
        # error. The whole document is re-read anyway, so compare everything taken so far.
        if self._index >= len(found):
            return np.empty(0)
        fork = found[self._index]
        values = fork.values
        n = min(len(values), self._taken)
        if fork.name != self.name or values[:n] != self._json_taken[:n]:
            raise DataFormatError(str(self.path), "the file was rewritten with other values "
                                                  "while watched", f"series {self.name!r}")
        if len(values) < self._taken:
            return np.empty(0)
        new = self._numbers(values, self._taken)
        self._json_taken.extend(values[self._taken:])
        self.complete = fork.complete
        return self._take(new)

    def _new_lines(self) -> list[str]:
        """The complete lines appended since the last poll (O(new bytes))."""
        with self.path.open("rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            if size < self._offset:
                raise DataFormatError(str(self.path), "the file shrank while watched")
            fh.seek(self._offset)
            chunk = fh.read()
        end = chunk.rfind(b"\n")
        if end < 0:
            return []
        first_line = self._offset == 0
        self._offset += end + 1
        lines = chunk[:end].decode("utf-8", errors="replace").splitlines()
        if first_line and lines:
            lines[0] = lines[0].lstrip("\ufeff")
        return lines

    def _poll_csv(self) -> NDArray[np.float64]:
        lines = self._new_lines()
        out: list[float] = []
        for line in lines:
            if not line.strip():
                continue
            if self._header is None and self._column is None and self._long is None:
                if self._start_csv(line):
                    continue
            self._csv_row(line, out)
            if self.complete:
                break
        return self._take(np.asarray(out, dtype=np.float64))

    def _start_csv(self, line: str) -> bool:
        """Read the first line: returns True when it is a header (consumed)."""
        self._delim = max(",;\t", key=line.count) if any(c in line for c in ",;\t") else ","
        cells = [c.strip() for c in line.split(self._delim)]
        try:
            float(cells[0])
            header = None
        except ValueError:
            header = cells
        names = header or [f"column{j}" for j in range(len(cells))]
        lower = [h.lower() for h in names]
        if header and all(c in lower for c in ("series_id", "index", "value")):
            self._header = header
            self._long = (lower.index("series_id"), lower.index("index"), lower.index("value"))
            return True
        value_cols = [j for j, h in enumerate(lower) if h not in ("x", "index")]
        # a CSV's columns all grow together: follow the first by default
        pick = 0 if self.series is None else self._select([names[j] for j in value_cols])
        if pick is None:
            raise DataFormatError(str(self.path), f"no series {self.series!r} among the columns "
                                                  f"{', '.join(names)}", "line 1")
        self._column = value_cols[pick]
        self.name = names[self._column]
        self._header = header or names
        return header is not None

    def _csv_row(self, line: str, out: list[float]) -> None:
        cells = [c.strip() for c in line.split(self._delim)]
        where = f"line with {line.strip()[:40]!r}"
        if self._long is not None:
            sid_col, idx_col, val_col = self._long
            if len(cells) <= max(self._long):
                raise DataFormatError(str(self.path), "too few cells", where)
            if self.name is None:
                if self.series is not None and cells[sid_col] != str(self.series):
                    return
                self.name = cells[sid_col]
            if cells[sid_col] != self.name:
                return
            expect = self._taken + len(out)
            if cells[idx_col] != str(expect):
                raise DataFormatError(str(self.path), f"series {self.name!r}: index "
                                      f"{cells[idx_col]!r} where {expect} comes next", where)
            out.append(self._float(cells[val_col], where))
            return
        assert self._column is not None
        cell = cells[self._column] if self._column < len(cells) else ""
        if not cell:
            self.complete = True  # a blank cell ends a wide column
            return
        out.append(self._float(cell, where))

    def _float(self, cell: str, where: str) -> float:
        try:
            return float(cell)
        except ValueError:
            raise DataFormatError(str(self.path), f"{cell!r} is not a number", where) from None

    # -- JMH's console output (``java -jar benchmarks.jar ... | tee run.log``) ---------------------

    def _poll_log(self) -> NDArray[np.float64]:
        """Measurement iterations of one fork; the fork is complete when the next one starts.
        The lines are parsed by :class:`segview.core.io.jmh_log.JmhLogParser` (the reader of
        ``segview open``), fed only the lines appended since the last poll."""
        if self._log is None:
            self._log = JmhLogParser(str(self.path))
        log = self._log
        for line in self._new_lines():
            log.feed(line)
        forks = {f.id: f for f in log.forks if not f.warmup_fork}  # JMH discards warm-up forks
        if self.name is None:
            pick = self._select(list(forks))
            if pick is None:
                return np.empty(0)
            self.name = list(forks)[pick]
        fork = forks.get(self.name)
        if fork is None:
            return np.empty(0)
        self.complete = fork.complete
        return self._take(np.asarray(fork.measured[self._taken:], dtype=np.float64))
