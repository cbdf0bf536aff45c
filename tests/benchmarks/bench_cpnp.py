"""cpnp's screened PELT kernel against the kernel it replaced: same bits, CPU time (issue 31).

    PYTHONPATH=. python tests/benchmarks/bench_cpnp.py [--reps 5] [--jmh 5] [--no-auto]
    PYTHONPATH=. python tests/benchmarks/bench_cpnp.py --check     # identity on JMH and TCPD

The baseline is ``segview/core/detectors/_cpnp_kernels.py`` at ``--baseline`` (a git revision;
default: the last one before the screening), loaded into this process under another name
(uncompiled cache) and swapped in for ``cpnp``'s kernel module, so ``segview.detect`` runs the same
code path with either kernel.

Timing: CPU time (``_timing.measure``: interleaved repetitions, median and range, load average)
of ``segview.detect(y, "cpnp")`` with the default (``rule=segview``, penalty times 5) and with
the preset ``tcpdbench`` (``rule=changepoint``, R's bits), on the 10 bundled sample series and
``--jmh`` JMH series (evenly spaced), and of ``segview.detect(y, "auto")`` (cpnp on ``y`` and
``-y`` with the preset, among four other models) on the sample series; the ratio new / old per
repetition.

``--check``: the kernel's two outputs (``lastchangelike``, ``lastchangecpts``, hence the change
points and the penalised cost) compared with ``np.array_equal`` between the two kernels, on all
JMH series (``shared/data/jmh/series``) and the TCPD series of ``bench_defaults.tcpd_family``,
on ``y`` and ``-y`` (after the detector's own scaling), with both rules at the default penalty
factor 5 and the preset's 1; exit code 1 on any difference.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import fmt, fmt_load, measure, ratio  # noqa: E402

import segview  # noqa: E402
from segview.core.detectors import _cpnp_kernels as new_kernels  # noqa: E402
from segview.core.detectors import cpnp as cpnp_module  # noqa: E402
from segview.core.detectors.cpnp import quantile_counts  # noqa: E402
from segview.core.detectors.partition import prepare_values  # noqa: E402
from segview.core.registry import get  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
KERNEL = "segview/core/detectors/_cpnp_kernels.py"
BASELINE = "34c2354"  # the last revision before the screening


def baseline_kernels(rev: str):
    """The kernel module at ``rev``, imported as ``_cpnp_kernels_baseline`` (not cached)."""
    src = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:{KERNEL}"], check=True,
                         capture_output=True, text=True).stdout
    src = src.replace("from ._jit import", "from segview.core.detectors._jit import")
    src = src.replace("cache=True", "cache=False")
    path = Path(tempfile.mkdtemp(prefix="cpnp_baseline_")) / "_cpnp_kernels_baseline.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("_cpnp_kernels_baseline", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@contextlib.contextmanager
def kernels(mod):
    """``cpnp`` (and so ``auto``) runs ``mod``'s kernel inside the block."""
    before = cpnp_module._ck
    cpnp_module._ck = mod
    try:
        yield
    finally:
        cpnp_module._ck = before


def sample_series() -> dict[str, np.ndarray]:
    return {p.stem: segview.load(p)[0].values
            for p in sorted((REPO / "resources" / "sample" / "jmh").glob("*.json"))}


def jmh_paths() -> list[Path]:
    return sorted((SHARED / "jmh" / "series").glob("*.json"))


def check(old) -> int:
    from bench_defaults import tcpd_family

    family = [(p.stem, segview.load(p)[0].values) for p in jmh_paths()]
    family += [(f"tcpd {name}", y) for name, y, _ in tcpd_family()]
    configs = [(rule, factor) for rule in ("segview", "changepoint") for factor in (5.0, 1.0)]
    spec = get("cpnp")
    bad = 0
    for name, values in family:
        for sign in (1.0, -1.0):
            params = spec.defaults()
            y, _, _ = prepare_values(sign * np.asarray(values, dtype=np.float64),
                                     {**params, "noise_scale": False})
            n = y.size
            Q = quantile_counts(y, 10)
            scale = -2.0 * math.log(2 * n - 1)
            for rule, factor in configs:
                pen = 3.0 * math.log(n) * factor
                exact = rule == "changepoint"
                a = old.pelt_ed(Q, pen, 1, scale, exact=exact)
                b = new_kernels.pelt_ed(Q, pen, 1, scale, exact=exact)
                if not (np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])):
                    bad += 1
                    print(f"DIFFERENT: {name} sign {sign:+g} rule {rule} factor {factor:g}")
    total = len(family) * 2 * len(configs)
    print(f"{total - bad} of {total} runs identical ({len(family)} series: "
          f"{len(family) - len(jmh_paths())} TCPD, the rest JMH; y and -y; rules segview and "
          "changepoint at penalty factors 5 and 1)")
    return 1 if bad else 0


def timing(old, reps: int, jmh: int, auto: bool) -> None:
    series = sample_series()
    paths = jmh_paths()
    for p in paths[:: max(1, len(paths) // jmh)][:jmh]:
        series[f"jmh {p.stem}"] = segview.load(p)[0].values

    def run(mod, y, **kw):
        def go():
            with kernels(mod):
                return segview.detect(y, **kw)
        return go

    cases = {}
    for name, y in series.items():
        for label, kw in (("default", {"method": "cpnp"}),
                          ("tcpdbench", {"method": "cpnp", "preset": "tcpdbench"})):
            cases[f"{name}|{label}|new"] = run(new_kernels, y, **kw)
            cases[f"{name}|{label}|old"] = run(old, y, **kw)
        if auto and name in sample_series():
            cases[f"{name}|auto|new"] = run(new_kernels, y, method="auto")
            cases[f"{name}|auto|old"] = run(old, y, method="auto")
    res = measure(cases, reps=reps)
    print(f"cpnp, CPU time per segview.detect, median (range) over {reps} interleaved "
          f"repetitions; {fmt_load(next(iter(res.values())))}")
    print(f"{'series':16s} {'case':10s} {'new':>24s} {'old':>24s}  new / old")
    totals: dict[str, list[tuple[float, float]]] = {}
    for key in cases:
        name, label, which = key.split("|")
        if which != "new":
            continue
        a, b = res[key], res[f"{name}|{label}|old"]
        totals.setdefault(label, []).append((a.median, b.median))
        print(f"{name:16s} {label:10s} {fmt(a):>24s} {fmt(b):>24s}  {fmt(ratio(a, b), unit='x')}")
    for label, pairs in totals.items():
        new_sum, old_sum = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
        print(f"{label}: sum of medians {1e3 * new_sum:.0f} ms against {1e3 * old_sum:.0f} ms, "
              f"new / old {new_sum / old_sum:.2f} over {len(pairs)} series")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE, help="git revision of the old kernel")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--jmh", type=int, default=5, help="JMH series timed besides the samples")
    ap.add_argument("--no-auto", action="store_true", help="skip auto end to end")
    ap.add_argument("--check", action="store_true", help="identity on all JMH and TCPD series")
    args = ap.parse_args(argv)
    old = baseline_kernels(args.baseline)
    if args.check:
        return check(old)
    timing(old, args.reps, args.jmh, not args.no_auto)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
