"""Benchmark: nRSS points mode, numba kernels against the former per-fold ``lstsq`` path (issue 15.2).

Both paths run in this process, interleaved, timed in CPU time (``time.process_time``):

* ``new``: :func:`segview.detect` as shipped (term values computed once per x, every window's 42
  (Extra-P) or 20 (paper) candidate fits in one numba call).
* ``old``: the same detector with ``_pmnf.fit_best``/``fit_best_paper``/``fit_sets_windows`` swapped
  for ``fit_best_reference``/``fit_best_paper_reference`` (one ``numpy.linalg.lstsq`` per LOO fold,
  one window at a time: the code before issue 15).

Cases: JMH series (3000 points, x = 1..n as in the explorer's default configuration), and sets of
10 points (points mode). Results are compared too (change points, pattern, models; nRSS to 1e-6).

Run: ``python tests/benchmarks/bench_nrss.py [--series 3] [--sets 200]``.
"""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import segview  # noqa: E402
from segview.core.detectors import _pmnf  # noqa: E402
from segview.core.io import jmh_json  # noqa: E402

JMH = REPO / ".." / "shared" / "data" / "jmh" / "series"


@contextlib.contextmanager
def old_path() -> Iterator[None]:
    """Swap the kernels for the former lstsq-per-fold path."""
    saved = (_pmnf.fit_best, _pmnf.fit_best_paper, _pmnf.fit_sets_windows)

    def windows(x, y, k, paper=False):
        fit = _pmnf.fit_best_paper_reference if paper else _pmnf.fit_best_reference
        return [fit(x[s:s + k], y[s:s + k]) for s in range(len(y) - k + 1)]

    _pmnf.fit_best, _pmnf.fit_best_paper = _pmnf.fit_best_reference, _pmnf.fit_best_paper_reference
    _pmnf.fit_sets_windows = windows
    try:
        yield
    finally:
        _pmnf.fit_best, _pmnf.fit_best_paper, _pmnf.fit_sets_windows = saved


def _cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def _same(a, b) -> bool:
    sa, sb = a.stats, b.stats
    ok = (list(a.change_points) == list(b.change_points) and sa["pattern"] == sb["pattern"]
          and sa["models"] == sb["models"])
    ea, eb = np.asarray(sa["nrss"]), np.asarray(sb["nrss"])
    fin = np.isfinite(eb) & (np.abs(eb) > 1e-9)
    return ok and bool(np.allclose(ea[fin], eb[fin], rtol=1e-6, atol=0))


def _sets(count: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Paper-style 10-point sets: x = 1..10 times a factor, one PMNF term, 0-5 % noise, half split."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        x = np.arange(1, 11.0) * rng.choice([1, 2, 4, 8, 16])
        i, j = _pmnf.EXPONENTS[rng.integers(len(_pmnf.EXPONENTS))]
        y = rng.uniform(0, 100) + rng.uniform(0.1, 10) * _pmnf.term_values(x, i, j)
        if rng.random() < 0.5:
            i, j = _pmnf.EXPONENTS[rng.integers(len(_pmnf.EXPONENTS))]
            y[5:] = rng.uniform(0, 100) + rng.uniform(0.1, 10) * _pmnf.term_values(x[5:], i, j)
        out.append((x, y * (1 + rng.uniform(-0.05, 0.05, 10))))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--series", type=int, default=2, help="JMH series to time (old path: ~1 min each)")
    ap.add_argument("--sets", type=int, default=200, help="10-point sets to time")
    args = ap.parse_args(argv)
    segview.detect(segview.Series(np.arange(1, 20.0), x=np.arange(1, 20.0)), "nrss")  # compile
    segview.detect(segview.Series(np.arange(1, 20.0), x=np.arange(1, 20.0)), "nrss", compat="extrap")
    print("case                         compat   old CPU s   new CPU s    ratio  same")
    sets = _sets(args.sets)
    for compat in ("paper", "extrap"):
        def run_sets():
            return [segview.detect(segview.Series(y, x=x), "nrss", compat=compat) for x, y in sets]
        t_new, new = _cpu(run_sets)
        with old_path():
            t_old, old = _cpu(run_sets)
        same = sum(_same(a, b) for a, b in zip(new, old))
        print(f"{len(sets)} sets of 10 points       {compat:7s} {1000 * t_old / len(sets):8.2f}ms "
              f"{1000 * t_new / len(sets):8.3f}ms {t_old / t_new:8.1f}  {same}/{len(sets)}")
    files = sorted(JMH.glob("*.json"))[: args.series] if JMH.is_dir() else []
    if not files:
        print("(no JMH data: ../shared/data/jmh absent)")
    for f in files:
        s = jmh_json.read(f)[0]
        for compat in ("paper", "extrap"):
            t_new, new = _cpu(lambda: segview.detect(s, "nrss", compat=compat))
            with old_path():
                t_old, old = _cpu(lambda: segview.detect(s, "nrss", compat=compat))
            print(f"{f.stem} ({s.values.size} points)       {compat:7s} {t_old:9.2f}  "
                  f"{t_new:9.3f} {t_old / t_new:8.0f}  {_same(new, old)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
