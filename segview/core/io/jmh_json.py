"""JMH measurements as JSON.

Two layouts are read:

* the fork list of the steady-state studies: ``[[x0, x1, ...], [x0, ...], ...]``, one list per fork;
  a flat list of numbers is taken as a single fork;
* JMH's own result file (``-rf json``): a list of benchmark objects whose
  ``primaryMetric.rawData`` holds one list per fork.

Series ids: the file stem when the file holds one fork, ``stem/forkK`` (0-based K) when it holds
several; for JMH result files ``benchmark[params]/forkK``.

A large JMH result file (30 M values are ~1.2 GB of JMH's pretty-printed JSON) is read by
:func:`_read_results_fast`: the ``rawData`` number lists are cut out of the bytes and converted by
Arrow's string-to-double cast (correctly rounded, so the doubles are those Python's ``json`` gives)
and only the rest of the file goes through ``json``. Anything unusual in them (a nested list,
a string, an empty fork, NaN) sends the file to the ordinary path, which gives the result or the
precise error. (The cast reads numbers as Python's ``float()`` does, so the few forms JSON forbids
but ``float()`` takes, ``1.``, ``.5``, ``+1``, ``01``, are read there rather than refused; JMH
writes none of them.)
"""
from __future__ import annotations

import json
import math
import mmap
from collections import deque
from collections.abc import Iterator, Mapping
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..benchmark import (BENCHMARK, DIRECTION, EXECUTION, HARNESS, HIGHER, LOWER, UNIT, WARMUP,
                         direction_for_unit, execution)
from ..context import NULL_CONTEXT, RunContext
from ..errors import DataFormatError
from ..model import Series
from .readers import (_NUMBER_TYPES, NotSeriesFile, bulk_objects, check_regular, finite_floats,
                      read_json)

#: forks built between two cancellation checks / progress reports
_STEP = 1 << 16


def sniff(head: str) -> bool:
    return head.lstrip().startswith("[")


def _numbers(values: Any, path: Path, where: str) -> Any:
    """The fork as float64 (vectorised); a bad value raises DataFormatError naming its index."""
    if isinstance(values, np.ndarray):  # parsed and checked by _read_results_fast
        return values
    if not isinstance(values, list):
        raise DataFormatError(str(path), f"expected a list of numbers, got {type(values).__name__}",
                              where)
    if not values:
        raise DataFormatError(str(path), "the fork holds no measurements", where)
    fast = finite_floats(values)
    if fast is not None:
        return fast
    out = []  # only to name the bad value
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise DataFormatError(str(path), f"value {v!r} is not a number", f"{where}, index {i}")
        try:
            f = float(v)
        except OverflowError:
            raise DataFormatError(str(path), f"value of {len(str(v))} digits is too large for a "
                                             "number", f"{where}, index {i}") from None
        if not math.isfinite(f):
            raise DataFormatError(str(path), f"value {v!r} is not finite", f"{where}, index {i}")
        out.append(f)
    return out


_TIME_MODES = ("avgt", "sample", "ss")  # JMH's time-per-operation modes (thrpt is a rate)


def _bench_name(entry: dict[str, Any]) -> str:
    name = str(entry.get("benchmark", "benchmark"))
    params = entry.get("params")
    if isinstance(params, dict) and params:
        name += "[" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + "]"
    return name


def _read_jmh_results(data: list[Any], path: Path, ctx: RunContext = NULL_CONTEXT,
                      parsed: list[list[np.ndarray]] | None = None) -> list[Series]:
    """Series of a JMH result file; ``parsed`` holds the rawData lists :func:`_read_results_fast`
    cut out (``rawData`` is then their index)."""
    out: list[Series] = []
    for b, entry in enumerate(data):
        where = f"benchmark {b}"
        metric = entry.get("primaryMetric") if isinstance(entry, dict) else None
        if not isinstance(metric, dict):
            raise DataFormatError(str(path), "JMH result entry has no primaryMetric object", where)
        raw = metric.get("rawData")
        if parsed is not None and type(raw) is int:
            raw = parsed[raw]
        if not isinstance(raw, list) or not raw:
            raise DataFormatError(str(path), "JMH result entry has no primaryMetric.rawData", where)
        name = _bench_name(entry)
        unit = str(metric.get("scoreUnit", ""))
        mode = str(entry.get("mode", ""))
        direction = HIGHER if mode == "thrpt" else LOWER if mode in _TIME_MODES else None
        params = entry.get("params") if isinstance(entry.get("params"), dict) else None
        run_meta = {k: entry[k] for k in ("jmhVersion", "jvm", "vmName", "vmVersion", "mode",
                                          "threads", "forks", "warmupIterations",
                                          "measurementIterations", "measurementTime")
                    if k in entry and isinstance(entry[k], (str, int, float))}
        for k, fork in enumerate(raw):
            vals = _numbers(fork, path, f"{where}, fork {k}")
            checked = isinstance(vals, np.ndarray)  # finite float64, made here: kept, not copied
            if checked:
                vals.flags.writeable = False
            # rawData holds the measured iterations only: JMH keeps warm-up iterations in its
            # console log alone, so warmup is 0 here.
            out.append(execution(vals, benchmark=name, index=k, harness="jmh", unit=unit,
                                 direction=direction or direction_for_unit(unit), params=params,
                                 id=f"{name}/fork{k}",
                                 metadata={**run_meta, "source": str(path), "fork": k,
                                           "format": "jmh-result"}, checked=checked))
        if b % 64 == 0:
            ctx.progress(b / len(data), f"benchmark {b + 1} of {len(data)}")
    return out


#: files from this size on try :func:`_read_results_fast` (smaller ones gain nothing from it)
FAST_MIN_BYTES = 1 << 20
_KEY = b'"rawData"'
_WS = b" \t\r\n"
_TRIM = " \t\r\n,[]"


def _read_results_fast(path: Path, ctx: RunContext = NULL_CONTEXT) -> list[Series] | None:
    """A JMH result file with its ``rawData`` lists parsed in bulk, or None when the file is not
    one or anything in it is unusual (the ordinary reader then gives the result or the error).

    Each ``"rawData": [[v, ...], ...]`` is located in the bytes (forks: ``[`` ... the first ``]``,
    no ``[`` inside), split at its commas into one Arrow string array per benchmark, trimmed of
    whitespace, commas and brackets, and cast to float64 (Arrow's correctly rounded parser). A
    token that is not a number (a string, ``null``, an empty fork) fails the cast; NaN and
    infinities fail the finite check. The rest of the file, with each ``rawData`` replaced by its
    index, is ordinary JSON.
    """
    try:
        if check_regular(path) < FAST_MIN_BYTES:
            return None
        import pyarrow  # noqa: F401  (a dependency; without it, the ordinary path)
        with open(path, "rb") as fh:
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (DataFormatError, ImportError, OSError, ValueError, MemoryError):
        return None
    try:
        cut = _cut_raw_data(data, ctx)
    finally:
        try:
            data.close()
        except BufferError:  # a view of it is still alive: closed when it is collected
            pass
    if cut is None:
        return None
    skeleton, parsed = cut
    try:
        doc = json.loads(b"".join(skeleton).decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, list) or not doc or not all(isinstance(e, dict) for e in doc):
        return None
    refs = [(e.get("primaryMetric") or {}).get("rawData") if isinstance(
        e.get("primaryMetric"), dict) else None for e in doc]
    if any(type(r) is not int or not 0 <= r < len(parsed) for r in refs) or \
            len(set(refs)) != len(refs):
        return None
    return _read_jmh_results(doc, path, ctx, parsed=parsed)


def _cut_raw_data(data: mmap.mmap, ctx: RunContext = NULL_CONTEXT
                  ) -> tuple[list[bytes], list[list[np.ndarray]]] | None:
    """The file without its rawData values (each replaced by its index) and the values, per
    benchmark and fork; None when anything is unusual. Pages already read are handed back to the
    system as it goes (the file is mapped, not read into memory), so the peak memory is the
    values, not the text. ``ctx`` hears the fraction of the file read."""
    import pyarrow as pa

    if data[:4096].lstrip(b"\xef\xbb\xbf" + _WS)[:1] != b"[" or data.find(_KEY) < 0:
        return None
    drop = getattr(mmap, "MADV_DONTNEED", None)
    dropped = 0
    u8 = np.frombuffer(data, dtype=np.uint8)
    buf = pa.py_buffer(data)
    parsed: list[list[np.ndarray]] = []
    skeleton: list[bytes] = []
    last = pos = 0
    size = len(data)
    try:
        while (i := data.find(_KEY, pos)) >= 0:
            if data[i - 1:i] == b"\\":
                return None
            j = i + len(_KEY)
            while data[j] in _WS:
                j += 1
            if data[j] != 58:  # ':'
                return None
            j += 1
            while data[j] in _WS:
                j += 1
            if data[j] != 91:  # '['
                return None
            value_start, k, forks = j, j + 1, []
            while True:
                while data[k] in _WS:
                    k += 1
                if data[k] != 91:
                    break
                e = data.find(b"]", k)
                if e < 0:
                    return None
                forks.append((k, e))  # (a "[" inside: refused by the parse below)
                k = e + 1
                while data[k] in _WS:
                    k += 1
                if data[k] != 44:  # ','
                    break
                k += 1
            if data[k] != 93 or not forks:  # ']' closes rawData
                return None
            lo, hi = forks[0][0], forks[-1][1] + 1
            commas = np.flatnonzero(u8[lo:hi] == 44) + lo
            values = _parse_uniform(data, buf, forks, commas)
            if values is None:
                if any(data.find(b"[", s + 1, e) >= 0 for s, e in forks):
                    return None  # a nested list: trimming would drop its "["
                values = _parse_any(buf, forks, commas, lo, hi)
                if values is None:
                    return None
            parsed.append(values)
            skeleton += [data[last:value_start], b"%d" % (len(parsed) - 1)]
            last = pos = k + 1
            if drop is not None and pos - dropped > 1 << 24:
                upto = pos // mmap.PAGESIZE * mmap.PAGESIZE
                data.madvise(drop, dropped, upto - dropped)
                dropped = upto
                ctx.progress(pos / size, f"{pos / 2**20:.0f} of {size / 2**20:.0f} MB")
    except (IndexError, ValueError, OSError, pa.ArrowException):
        return None
    skeleton.append(data[last:])
    return skeleton, parsed


def _checked_values(values: NDArray[np.float64], tokens: Any) -> NDArray[np.float64] | None:
    """``values`` (the cast of ``tokens``) read-only, or None when one is NaN or infinite; an
    integer ``-0`` (no ``.``, ``e`` or ``E``) becomes +0.0 as in Python's ``json``."""
    if not np.isfinite(values).all():
        return None
    if not values.all():  # a zero: is it an integer -0?
        negative_zero = np.flatnonzero(np.signbit(values) & (values == 0))
        if negative_zero.size:
            values = values.copy()
            for z in negative_zero:
                text = tokens[int(z)].as_py()
                if isinstance(text, bytes):
                    text = text.decode("ascii", "replace")
                if not any(c in text for c in ".eE"):
                    values[z] = 0.0
    values.flags.writeable = False
    return values


def _parse_uniform(data: mmap.mmap, buf: Any, forks: list[tuple[int, int]],
                   commas: NDArray[np.int64]) -> list[NDArray[np.float64]] | None:
    """The forks of one ``rawData`` laid out as JMH writes it: every value preceded by the same
    whitespace (JMH's ``",\\n" + indent``) and followed by its comma (or, last in its fork, by
    whitespace or ``]``). None when the layout differs (:func:`_parse_any` then reads it).

    Without trimming: each value is one Arrow binary element ``<whitespace><number><comma>``
    taken straight from the mapped file; ``starts_with`` checks that every element's leading
    whitespace is the first value's, ``binary_slice`` drops it and the comma, and the cast parses
    the number (it refuses any other byte: a space, a letter, a "[" of a nested list, an empty
    value). The bytes between two forks (``]``, whitespace, ``,``, ``[``, checked by the caller)
    are one null element each, so a benchmark is three Arrow calls, not three per fork."""
    import pyarrow as pa
    import pyarrow.compute as pc

    s0 = forks[0][0]
    k = s0 + 1
    while data[k] in _WS:
        k += 1
    width = k - s0 - 1
    lead = data[s0 + 1:k]
    ends, starts = [], []
    for s, e in forks:
        t = e - 1
        while data[t] in _WS:
            t -= 1
        if t <= s:
            return None  # an empty fork: the ordinary reader names it
        ends.append(t + 2)  # one byte past the value: the element's last byte is dropped
        starts.append(s + 1)
    nf = len(forks)
    # the elements: per fork, its values (each from after the "[" or comma before it); between
    # two forks one null element (their "], [" bytes)
    after = commas + 1
    bounds = [0, *(np.searchsorted(commas, [e for _, e in forks[:-1]]) + 1).tolist(), after.size]
    pieces: list[Any] = []
    counts = []
    for f in range(nf):
        # the fork's commas, less the one between it and the next fork
        cut = after[bounds[f]:bounds[f + 1] - (f < nf - 1)]
        pieces += [starts[f:f + 1], cut, ends[f:f + 1]]
        counts.append(cut.size + 1)
    offs = np.concatenate(pieces)
    n = offs.size - 1
    junk = (np.cumsum(counts[:-1]) + np.arange(nf - 1)) if nf > 1 else None
    validity = None
    if junk is not None:
        valid = np.ones(n, dtype=bool)
        valid[junk] = False
        validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    pool = pa.system_memory_pool()
    tokens = pa.Array.from_buffers(pa.large_binary(), n, [validity, pa.py_buffer(offs), buf],
                                   null_count=nf - 1)
    try:
        if width and not pc.all(pc.starts_with(tokens, pattern=lead, memory_pool=pool),
                                memory_pool=pool).as_py():
            return None
        numbers = pc.binary_slice(tokens, width, -1, memory_pool=pool)
        cast = pc.cast(numbers, pa.float64(), memory_pool=pool)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if cast.null_count != nf - 1:
        return None
    values = np.frombuffer(cast.buffers()[1], dtype=np.float64, count=n, offset=cast.offset * 8)
    if junk is not None:  # the null elements' slots hold anything: make them harmless
        if not values.flags.writeable:
            values = values.copy()
        values[junk] = 1.0
    checked = _checked_values(values, numbers)
    if checked is None:
        return None
    if junk is None:
        return [checked]
    # the forks, without the null elements between them (slices: np.split costs 30 us a piece)
    return list(map(checked.__getitem__, map(slice, [0, *(junk + 1).tolist()],
                                             [*junk.tolist(), n])))


def _parse_any(buf: Any, forks: list[tuple[int, int]], commas: NDArray[np.int64], lo: int,
               hi: int) -> list[NDArray[np.float64]] | None:
    """The forks of one ``rawData`` in any whitespace layout: split at every comma, trimmed of
    whitespace, commas and brackets, cast. None when a token is not a finite number."""
    import pyarrow as pa
    import pyarrow.compute as pc

    pool = pa.system_memory_pool()
    offsets = np.empty(commas.size + 2, dtype=np.int64)
    offsets[0], offsets[-1] = lo, hi
    offsets[1:-1] = commas + 1
    tokens = pa.LargeStringArray.from_buffers(commas.size + 1, pa.py_buffer(offsets), buf)
    texts = pc.ascii_trim(tokens, _TRIM, memory_pool=pool)
    cast = pc.cast(texts, pa.float64(), memory_pool=pool)
    if cast.null_count:
        return None
    # the doubles as numpy, zero-copy (Array.to_numpy would import pandas: ~1 s)
    values = np.frombuffer(cast.buffers()[1], dtype=np.float64, count=len(cast),
                           offset=cast.offset * 8)
    checked = _checked_values(values, texts)
    if checked is None:
        return None
    ends = (np.searchsorted(commas, [e for _, e in forks]) + 1).tolist()
    return list(map(checked.__getitem__, map(slice, [0, *ends[:-1]], ends)))


class ForkMetadata(Mapping[str, Any]):
    """The metadata of one fork of a fork list, ``{"source", "fork", "execution", ...}`` (the
    shared ``extra`` pairs: format and the benchmark keys of :mod:`segview.core.benchmark`), as a
    read-only mapping of 56 bytes instead of a 200-byte dict per fork: a file of a million forks
    kept 200 MB of identical dicts. It compares equal to the dict it stands for."""

    __slots__ = ("_source", "_fork", "_extra")

    def __init__(self, source: str, fork: int, extra: "tuple[tuple[str, Any], ...]") -> None:
        self._source, self._fork, self._extra = source, fork, extra

    def __getitem__(self, key: str) -> Any:
        if key == "source":
            return self._source
        if key == "fork" or key == EXECUTION:
            return self._fork
        for k, v in self._extra:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        yield "source"
        yield "fork"
        yield EXECUTION
        for k, _ in self._extra:
            yield k

    def __len__(self) -> int:
        return 3 + len(self._extra)

    def __repr__(self) -> str:
        return repr(dict(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (ForkMetadata, (self._source, self._fork, self._extra))

    @classmethod
    def many(cls, source: str, forks: "range", extra: "tuple[tuple[str, Any], ...]"
             ) -> "list[ForkMetadata]":
        """One per fork of ``forks``, filled by C-level ``map`` passes (no __init__ call each)."""
        objs = list(map(object.__new__, repeat(cls, len(forks))))
        deque(map(getattr(cls, "_source").__set__, objs, repeat(source)), maxlen=0)
        deque(map(getattr(cls, "_fork").__set__, objs, forks), maxlen=0)
        deque(map(getattr(cls, "_extra").__set__, objs, repeat(extra)), maxlen=0)
        return objs


def _fork_list_extra(stem: str) -> "tuple[tuple[str, Any], ...]":
    """What every fork of a fork list shares: the file stem is the benchmark, JMH the harness; a
    fork list carries no unit, so the direction stays unknown, and no warm-up iterations."""
    return (("format", "jmh"), (BENCHMARK, stem), (HARNESS, "jmh"), (UNIT, ""), (DIRECTION, None),
            (WARMUP, 0))


def _frozen(values: Any) -> NDArray[np.float64]:
    arr = np.ascontiguousarray(values, dtype=np.float64)
    arr.flags.writeable = False
    return arr


def _all_forks(data: list[Any]) -> tuple[NDArray[np.float64], NDArray[np.int64], int] | None:
    """Every fork's values in one read-only float64 array, the fork boundaries and the common
    fork length (0 when the forks differ in length), when every fork is a non-empty list of
    finite numbers; None otherwise (the fork-by-fork reader then names the bad value). One
    C-level pass per check instead of one numpy call per fork; forks of one length (the usual
    file) are converted as one matrix."""
    if not set(map(type, data)) <= {list}:
        return None
    width = len(data[0])
    if width and all(len(f) == width for f in data):
        if not set(map(type, chain.from_iterable(data))) <= _NUMBER_TYPES:
            return None
        try:
            matrix = np.array(data, dtype=np.float64)
        except OverflowError:
            return None
        if not np.isfinite(matrix).all():
            return None
        flat = matrix.reshape(-1)
        flat.flags.writeable = False
        return flat, np.arange(0, flat.size + 1, width, dtype=np.int64), width
    lengths = np.fromiter(map(len, data), dtype=np.int64, count=len(data))
    if not lengths.all():
        return None
    floats = finite_floats(list(chain.from_iterable(data)))
    if floats is None:
        return None
    floats.flags.writeable = False
    bounds = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    return floats, bounds, 0


def read(path: Path, ctx: RunContext | None = None) -> list[Series]:
    """Read a JMH fork list or JMH result file; raises DataFormatError naming file and place.

    ``ctx`` reports progress within the file (the fraction of forks made into series) and is
    checked for cancellation every few thousand forks.
    """
    with bulk_objects():
        return _read(path if isinstance(path, Path) else Path(path), ctx or NULL_CONTEXT)


def _read(path: Path, ctx: RunContext) -> list[Series]:
    fast_results = _read_results_fast(path, ctx)
    if fast_results is not None:
        return fast_results
    data = read_json(path)
    if isinstance(data, dict):
        raise NotSeriesFile(str(path), "a JSON object, not a JMH fork list (a list of forks)")
    if not isinstance(data, list) or not data:
        raise DataFormatError(str(path), "expected a non-empty list of forks")
    if all(isinstance(e, dict) for e in data):
        return _read_jmh_results(data, path, ctx)
    if set(map(type, data)) <= {int, float}:
        data = [data]  # a single fork written as a flat list
    ctx.check()
    fast = _all_forks(data)
    if fast is None:  # some fork is not a clean list of numbers: the fork-by-fork reader names it
        forks = [np.asarray(_numbers(fork, path, f"fork {k}"), dtype=np.float64)
                 for k, fork in enumerate(data)]
        fast = _frozen(np.concatenate(forks)), np.cumsum([0] + [f.size for f in forks]), 0
    n = len(data)
    del data  # the parsed JSON (one list per fork) is no longer needed
    flat, bounds, width = fast
    source = str(path)
    stem = path.stem
    if n == 1:
        return [Series._checked(flat, stem, ForkMetadata(source, 0, _fork_list_extra(stem)))]
    if width or bool((np.diff(bounds) == bounds[1]).all()):  # forks of one length: matrix rows
        views: Any = flat.reshape(n, int(bounds[1]))  # row views are made in C
    else:
        views = list(map(flat.__getitem__, map(slice, bounds[:-1].tolist(), bounds[1:].tolist())))
    prefix = f"{stem}/fork"
    extra = _fork_list_extra(stem)
    out: list[Series] = []
    for lo in range(0, n, _STEP):
        ctx.progress(lo / n, f"fork {lo + 1} of {n}")
        block = range(lo, min(lo + _STEP, n))
        out += Series._checked_many(list(views[lo:block.stop]),
                                    list(map(prefix.__add__, map(str, block))),
                                    ForkMetadata.many(source, block, extra))
    return out
