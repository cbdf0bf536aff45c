"""``perf stat -x,`` output (Linux perf's CSV mode) as benchmarks: one benchmark per event.

Format (``perf-stat(1)``, section "CSV FORMAT", checked against perf 6.1.192 on Debian): one line
per event, fields separated by the ``-x`` string (here ``,`` or ``;``)::

    [time,]value,unit,event[,variance%],run-time,percentage[,metric-value,metric-unit]

* ``time`` (seconds since the start) only with ``-I MS`` (interval mode): the event's series over
  time; the times become the series' x values.
* ``value`` is a number, or ``<not counted>`` / ``<not supported>`` (the event did not run: that
  point is left out with a warning, never silently).
* ``unit`` is ``msec`` for the clock events and empty for counts.
* ``variance%`` only with ``-r N`` (the value is then the mean of N runs).
* ``# started on DATE`` comment lines start each ``perf stat`` run (``-o FILE --append`` keeps
  adding runs to one file).

What a file becomes: a benchmark per event, named ``FILE-STEM/EVENT`` (the CSV output does not
name the command measured, so the file does). Without ``-I``, every run gives one value per
event, so the runs appended to a file (a shell loop of ``perf stat -x, -o out.csv --append
-e EVENTS -- CMD``) form each event's series, one run per iteration, in one execution. With ``-I``, each run (each ``# started on``
block) is one process execution of every event and its intervals are the iterations. Per-CPU
modes (``-A``, ``--per-core``, ``--per-socket``) add identifier fields and are not read.
Direction: ``msec`` is a time (lower is better); counts have no direction unless named.
"""
from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

from ..benchmark import direction_for_unit, execution
from ..errors import DataFormatError, SegviewWarning
from ..model import Series
from .readers import read_text

NAME = "perf-stat"
NOT_COUNTED = ("<not counted>", "<not supported>")
_EVENT = re.compile(r"^[A-Za-z_][\w\-.:/=@]*$")
_NUM = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_UNITS = {"msec": "ms", "usec": "us", "nsec": "ns", "sec": "s"}

EXAMPLE = """# started on Thu Nov 26 13:55:24 2026

0.73,msec,task-clock,729600,100.00,0.362,CPUs utilized
47,,page-faults,729600,100.00,64.419,K/sec"""


def _is_value(cell: str) -> bool:
    return bool(_NUM.match(cell)) or cell in NOT_COUNTED


def _layout(fields: list[str]) -> str | None:
    """``"interval"`` or ``"plain"`` for a data line; None when it is not ``perf stat -x``."""
    f = [c.strip() for c in fields]
    if len(f) >= 6 and _NUM.match(f[0]) and _is_value(f[1]) and _EVENT.match(f[3]) \
            and not _NUM.match(f[2]):
        rest = f[4:]
        if rest and rest[0].endswith("%"):
            rest = rest[1:]
        if len(rest) >= 2 and _NUM.match(rest[0]) and _NUM.match(rest[1]):
            return "interval"
    if len(f) >= 5 and _is_value(f[0]) and not _NUM.match(f[1]) and _EVENT.match(f[2]):
        rest = f[3:]
        if rest and rest[0].endswith("%"):
            rest = rest[1:]
        if len(rest) >= 2 and _NUM.match(rest[0]) and _NUM.match(rest[1]):
            return "plain"
    return None


def _separator(line: str) -> str:
    return ";" if line.count(";") > line.count(",") else ","


def sniff(head: str) -> bool:
    lines = [ln for ln in head.splitlines() if ln.strip()]
    if len(lines) > 1 and not head.endswith("\n"):
        lines = lines[:-1]  # the 4 KiB head may cut the last line
    data = [ln for ln in lines if not ln.lstrip().startswith("#")]
    if not data:
        return False
    sep = _separator(data[0])
    kinds = {_layout(ln.split(sep)) for ln in data[:50]}
    return len(kinds) == 1 and None not in kinds


def read(path: Path) -> list[Series]:
    """Read ``perf stat -x`` output; raises DataFormatError naming the file and line."""
    path = Path(path)
    text = read_text(path)
    runs: list[list[tuple[int, list[str]]]] = [[]]
    started: list[str] = [""]
    sep = None
    mode = None
    for line_no, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            if s.startswith("# started on"):
                if runs[-1]:
                    runs.append([])
                    started.append("")
                started[-1] = s[len("# started on"):].strip()
            continue
        if sep is None:
            sep = _separator(s)
        fields = [c.strip() for c in s.split(sep)]
        kind = _layout(fields)
        if kind is None:
            raise DataFormatError(str(path), "not a perf stat -x line (expected [time,]value,unit,"
                                             "event,[variance%,]run-time,percentage,...)",
                                  f"line {line_no}")
        if mode is None:
            mode = kind
        elif kind != mode:
            raise DataFormatError(str(path), "interval (-I) and plain lines are mixed",
                                  f"line {line_no}")
        runs[-1].append((line_no, fields))
    if mode is None:
        raise DataFormatError(str(path), "no perf stat lines (only comments)")
    interval = mode == "interval"
    # event -> execution -> [(line, value, time, fields)]
    events: dict[str, dict[int, list[tuple[int, float, float | None, list[str]]]]] = {}
    units: dict[str, tuple[str, int]] = {}
    skipped: dict[str, list[str]] = {}
    for k, run in enumerate(runs):
        for line_no, f in run:
            if interval:
                t, f = float(f[0]), f[1:]
            else:
                t = None
            value, unit, event = f[0], f[1], f[2]
            prev = units.setdefault(event, (unit, line_no))
            if prev[0] != unit:
                raise DataFormatError(str(path), f"event {event!r} in unit {unit!r} here but "
                                                 f"{prev[0]!r} on line {prev[1]}",
                                      f"line {line_no}")
            execs = events.setdefault(event, {})
            if value in NOT_COUNTED:
                skipped.setdefault(event, []).append(f"line {line_no}: {value}")
                execs.setdefault(k if interval else 0, [])
                continue
            v = float(value)
            if not math.isfinite(v):
                raise DataFormatError(str(path), f"value {value!r} is not finite",
                                      f"line {line_no}")
            execs.setdefault(k if interval else 0, []).append((line_no, v, t, f))
    out: list[Series] = []
    for event, execs in events.items():
        unit = units[event][0]
        direction = direction_for_unit(_UNITS.get(unit, unit))
        notes = []
        if event in skipped:
            lines = skipped[event]
            notes.append(f"{path}: event {event!r}: {len(lines)} point(s) not counted and left out "
                         f"({'; '.join(lines[:3])}{'...' if len(lines) > 3 else ''})")
        first = True
        for k, points in sorted(execs.items()):
            if not points:
                notes.append(f"{path}: event {event!r}: run {k} ({started[k] or 'no start line'}) "
                             "counted nothing")
                continue
            f0 = points[0][3]
            meta = {"source": str(path), "format": NAME, "event": event,
                    "started": started[k] if interval else [s for s in started if s],
                    "mean_of_repeats": f0[3].endswith("%")}
            if first and notes:
                meta["load_warnings"] = list(notes)
            first = False
            # interval mode: every point has its time (t is None only in plain mode)
            xs = [p[2] for p in points if p[2] is not None] if interval else None
            name = f"{path.stem}/{event}"
            out.append(execution([p[1] for p in points], benchmark=name, index=k, harness="perf",
                                 unit=unit, direction=direction, metadata=meta, x=xs,
                                 id=name if not interval or len(execs) == 1 else None))
        if first:  # nothing counted at all: say so (the other events still load)
            notes = [f"{path}: event {event!r} was never counted and is left out "
                     f"({'; '.join(skipped.get(event, [])[:3])})"]
        for note in notes:
            warnings.warn(note, SegviewWarning, stacklevel=2)
    if not out:
        raise DataFormatError(str(path), "no event was counted (every value is <not counted> or "
                                         "<not supported>)")
    return out
