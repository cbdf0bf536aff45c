"""Grid workload series from job logs, and breakpoints clustered across sites (seed 004 §3, §6.3).

Spec ``docs/algorithms/autoparm.md`` §11. Per job: arrival ``Ta``, start ``Ts``, end ``Te``
(``Ta <= Ts <= Te``). Jobs with a zero (or missing) timestamp and jobs running longer than
``max_runtime`` (1 day) are dropped, as in the seed. With ``d = Te - Ts``::

    CRA(t) = sum_{Ta < t} d      (work that has arrived)
    CRS(t) = sum_{Ts < t} d      (work that has started)
    RR(t)  = sum_{Ts < t < Te} (Te - t)   (remaining run time of running jobs)
    W(t)   = CRA(t) - CRS(t) + RR(t)      (work waiting or still to run, in seconds)

evaluated at ``t_k = t_0 + k * step`` and analysed as ``Y_k = W(t_k) - W(t_{k-1})``.

Input formats:

* **CSV** with a header naming the three time columns (defaults ``submit``, ``start``, ``end``;
  numbers in seconds, any common origin). Other columns are ignored.
* **Standard Workload Format** (``.swf``, Feitelson's Parallel Workloads Archive): ``;`` starts a
  comment line; each job line has 18 whitespace-separated fields. Used: field 2 submit time (s),
  field 3 wait time (s), field 4 run time (s); ``Ta = submit``, ``Ts = submit + wait``,
  ``Te = Ts + run``. A wait or run time of ``-1`` (unknown) drops the job; a zero time is valid
  there (SWF counts from the log's start).

No Qt here; the ``segview workload`` command (``segview.cli.workload``) is the front end.
"""
from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import DataFormatError, InputError

DAY = 86_400.0


@dataclass(frozen=True)
class JobLog:
    """Arrival, start and end times (seconds) of the kept jobs, and how many were dropped."""

    arrival: NDArray[np.float64]
    start: NDArray[np.float64]
    end: NDArray[np.float64]
    dropped: int = 0
    source: str = ""


def clean_jobs(arrival: ArrayLike, start: ArrayLike, end: ArrayLike,
               max_runtime: float = DAY, source: str = "", drop_zero: bool = True) -> JobLog:
    """Drop jobs with a NaN (or, with ``drop_zero``, zero) timestamp or a run time above
    ``max_runtime``; check the order.

    Raises:
        DataFormatError: a kept job with ``Ta > Ts`` or ``Ts > Te`` (names the first one).
    """
    ta, ts, te = (np.asarray(v, dtype=np.float64) for v in (arrival, start, end))
    if not (ta.shape == ts.shape == te.shape) or ta.ndim != 1:
        raise InputError(source or "job log", "arrival, start and end need the same length")
    ok = np.isfinite(ta) & np.isfinite(ts) & np.isfinite(te)
    if drop_zero:
        ok &= (ta != 0) & (ts != 0) & (te != 0)
    ok &= (te - ts) <= max_runtime
    bad = np.flatnonzero(ok & ((ta > ts) | (ts > te)))
    if bad.size:
        i = int(bad[0])
        raise DataFormatError(source or "job log", f"arrival {ta[i]:g}, start {ts[i]:g}, end "
                              f"{te[i]:g}; expected arrival <= start <= end", f"job {i + 1}")
    return JobLog(ta[ok], ts[ok], te[ok], int(ta.size - ok.sum()), source)


def read_csv_log(path: str | Path, columns: tuple[str, str, str] = ("submit", "start", "end"),
                 max_runtime: float = DAY) -> JobLog:
    """Job log from a CSV file with a header; ``columns`` names the arrival/start/end columns."""
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            missing = [c for c in columns if c not in header]
            if missing:
                raise DataFormatError(str(path), f"missing column(s) {', '.join(missing)} "
                                      f"(header: {', '.join(header) or 'empty'})", "line 1")
            rows = []
            for line, row in enumerate(reader, start=2):
                try:
                    rows.append([float(row[c]) for c in columns])
                except (TypeError, ValueError):
                    raise DataFormatError(str(path), f"expected numbers in "
                                          f"{', '.join(columns)}, got "
                                          f"{[row.get(c) for c in columns]}",
                                          f"line {line}") from None
    except OSError as err:
        raise DataFormatError(str(path), str(err.strerror or err)) from None
    if not rows:
        raise DataFormatError(str(path), "no jobs")
    a = np.array(rows, dtype=np.float64)
    return clean_jobs(a[:, 0], a[:, 1], a[:, 2], max_runtime, str(path))


def read_swf(path: str | Path, max_runtime: float = DAY) -> JobLog:
    """Job log from a Standard Workload Format file (fields 2-4: submit, wait, run time)."""
    path = Path(path)
    rows = []
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line_no, line in enumerate(fh, start=1):
                text = line.strip()
                if not text or text.startswith(";"):
                    continue
                fields = text.split()
                if len(fields) < 4:
                    raise DataFormatError(str(path), f"expected 18 SWF fields, got "
                                          f"{len(fields)}", f"line {line_no}")
                try:
                    submit, wait, run = (float(f) for f in fields[1:4])
                except ValueError:
                    raise DataFormatError(str(path), f"fields 2-4 (submit, wait, run time) must "
                                          f"be numbers, got {fields[1:4]}",
                                          f"line {line_no}") from None
                rows.append((submit, wait, run))
    except OSError as err:
        raise DataFormatError(str(path), str(err.strerror or err)) from None
    if not rows:
        raise DataFormatError(str(path), "no job lines")
    a = np.array(rows, dtype=np.float64)
    unknown = (a[:, 1] < 0) | (a[:, 2] < 0)
    ta = np.where(unknown, np.nan, a[:, 0])
    ts = ta + a[:, 1]
    te = ts + a[:, 2]
    # SWF times count from the log's start, so 0 is a valid submit time; unknown values are -1
    return clean_jobs(ta, ts, te, max_runtime, str(path), drop_zero=False)


def read_log(path: str | Path, columns: tuple[str, str, str] = ("submit", "start", "end"),
             max_runtime: float = DAY) -> JobLog:
    """``.swf`` files as SWF, everything else as CSV."""
    if str(path).lower().endswith(".swf"):
        return read_swf(path, max_runtime)
    return read_csv_log(path, columns, max_runtime)


def workload(log: JobLog, step: float, t0: float | None = None, t1: float | None = None
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(t_k, W(t_k))`` on the grid ``t0, t0 + step, ... <= t1`` (default: the log's span).

    Exact for every grid point (sorted times and cumulative sums, autoparm.md §11).
    """
    if not (step > 0 and math.isfinite(step)):
        raise InputError("workload", f"step must be a positive number of seconds, got {step!r}")
    if log.arrival.size == 0:
        raise InputError(log.source or "job log", f"no jobs left after dropping {log.dropped} "
                         f"(zero or unknown timestamps, or longer than max_runtime)")
    lo = float(log.arrival.min()) if t0 is None else float(t0)
    hi = float(log.end.max()) if t1 is None else float(t1)
    if hi <= lo:
        raise InputError("workload", f"empty time range {lo:g} to {hi:g}")
    t = lo + step * np.arange(int(math.floor((hi - lo) / step)) + 1, dtype=np.float64)
    d = log.end - log.start
    oa = np.argsort(log.arrival, kind="stable")
    os_ = np.argsort(log.start, kind="stable")
    oe = np.argsort(log.end, kind="stable")
    cum_da = np.concatenate([[0.0], np.cumsum(d[oa])])
    cum_ds = np.concatenate([[0.0], np.cumsum(d[os_])])
    cum_te_s = np.concatenate([[0.0], np.cumsum(log.end[os_])])
    cum_te_e = np.concatenate([[0.0], np.cumsum(log.end[oe])])
    na = np.searchsorted(log.arrival[oa], t, side="left")  # Ta < t
    ns = np.searchsorted(log.start[os_], t, side="left")  # Ts < t
    ne = np.searchsorted(log.end[oe], t, side="right")  # Te <= t
    cra = cum_da[na]
    crs = cum_ds[ns]
    rr = (cum_te_s[ns] - t * ns) - (cum_te_e[ne] - t * ne)
    return t, cra - crs + rr


def workload_brute(log: JobLog, t: NDArray[np.float64]) -> NDArray[np.float64]:
    """The definition evaluated job by job (O(jobs x points)); the reference for tests."""
    d = log.end - log.start
    out = np.empty(t.size)
    for k, tk in enumerate(t):
        running = (log.start < tk) & (tk < log.end)
        out[k] = (d[log.arrival < tk].sum() - d[log.start < tk].sum()
                  + (log.end[running] - tk).sum())
    return out


def cluster_sites(breakpoints: dict[str, Sequence[float]], cutoff: float
                  ) -> list[dict[str, object]]:
    """Global breakpoints: centroid-linkage clusters of several sites' breakpoints (seed 004 §6.3,
    cutoff ``c'``, in the breakpoints' unit), each with its median position, spread and sites."""
    pts, owner = [], []
    for site, bps in breakpoints.items():
        for b in bps:
            pts.append(float(b))
            owner.append(site)
    if not pts:
        return []
    x = np.array(pts)
    if x.size == 1:
        labels = np.array([1])
    else:
        from scipy.cluster.hierarchy import fcluster, linkage
        labels = fcluster(linkage(x.reshape(-1, 1), method="centroid"), t=cutoff,
                          criterion="distance")
    out: list[tuple[float, dict[str, object]]] = []   # (position, cluster)
    for lab in np.unique(labels):
        idx = np.flatnonzero(labels == lab)
        members = x[idx]
        position = float(np.median(members))
        out.append((position, {"position": position, "min": float(members.min()),
                               "max": float(members.max()), "size": int(idx.size),
                               "sites": sorted({owner[i] for i in idx})}))
    return [c for _, c in sorted(out, key=lambda pc: pc[0])]


# ------------------------------------------------------------------- CE-A-shaped test series
def ce_a_like(seed: int = 0, n: int = 1895, n_breaks: int = 20
              ) -> tuple[NDArray[np.float64], list[int], list[int]]:
    """A seeded series shaped like seed 004's CE-A workload: ``n`` points, ``n_breaks`` breaks.

    Generator (``rng = numpy.random.default_rng(seed)``), in this order:

    1. Piece lengths: ``30 + floor(rng.dirichlet(2 * ones(k)) * (n - 30 k))``, ``k = n_breaks + 1``,
       the rounding remainder added to the last piece.
    2. Per piece: ``idle = rng.random() < 0.15`` (an all-zero piece: no job arrives, starts or
       ends, the seed's ``gamma_j = 0`` pieces); order ``p = rng.choice([0, 0, 1, 1, 2, 3, 4, 6])``;
       partial autocorrelations ``rng.uniform(-0.7, 0.7, p)`` turned into AR coefficients by the
       Levinson recursion (stationary); ``sigma = exp(rng.uniform(log 0.5, log 20))``;
       ``mean = rng.uniform(-5, 5)``.
    3. Each non-idle piece is an independent AR realisation, ``100`` burn-in steps, driven by
       ``sigma * rng.standard_normal(len + 100)``, plus its mean.

    Returns ``(y, starts, orders)`` with 0-based piece starts (idle pieces report order 0).
    """
    rng = np.random.default_rng(seed)
    k = n_breaks + 1
    if n < 30 * k:
        raise InputError("ce_a_like", f"n = {n} is too short for {k} pieces of at least 30")
    lengths = 30 + np.floor(rng.dirichlet(2.0 * np.ones(k)) * (n - 30 * k)).astype(int)
    lengths[-1] += n - int(lengths.sum())
    pieces, orders = [], []
    for length in lengths:
        idle = rng.random() < 0.15
        p = int(rng.choice([0, 0, 1, 1, 2, 3, 4, 6]))
        pacf = rng.uniform(-0.7, 0.7, p)
        sigma = math.exp(rng.uniform(math.log(0.5), math.log(20.0)))
        mean = rng.uniform(-5.0, 5.0)
        phi = np.zeros(0)
        for kk, a in enumerate(pacf, start=1):  # PACF -> AR coefficients
            phi = np.append(phi - a * phi[::-1], a) if kk > 1 else np.array([a])
        e = sigma * rng.standard_normal(length + 100)
        if idle:
            pieces.append(np.zeros(length))
            orders.append(0)
            continue
        z = np.zeros(length + 100)
        for t in range(length + 100):
            acc = e[t]
            for i in range(1, p + 1):
                if t - i >= 0:
                    acc += phi[i - 1] * z[t - i]
            z[t] = acc
        pieces.append(z[100:] + mean)
        orders.append(p)
    starts = [int(s) for s in np.cumsum(lengths)[:-1]]
    return np.concatenate(pieces), starts, orders
