"""Issue 28's table of docs/defaults.md: every change-point method's default against TCPDBench's
default, mean F1 and cover on the 12 univariate TCPD development data sets (in sample and leave one
out), and the JMH flood figures.

    python tests/benchmarks/bench_defaults_table.py [--methods auto,binseg,kcpa@tcpdbench,...]
        [--no-jmh] [--no-jmh-for ecp]

``method@preset`` adds a row for a preset (e.g. the earlier default a new version replaced).

* Scores: TCPDBench's F1 (margin 5) and covering metric (segview.core.evaluation.tcpd_metrics),
  locations converted as TCPDBench reports them (``to_tcpdbench``: cp - 1 for every method but
  bocpd), averaged over the 12 data sets; "TCPDBench" columns are the published default scores of
  ``shared/data/tcpd/tcpdbench_default_all_methods.json`` (blank where TCPDBench has no such method).
* Leave one out: for a method whose default was chosen on these data (a grid below), the grid point
  with the best mean F1 + cover on 11 data sets is scored on the 12th; a method with no grid had no
  parameter chosen on TCPD and its leave-one-out figure is its in-sample one (marked "=").
* JMH: the 350 series of ``shared/data/jmh`` at the method's defaults, the 90th percentile and the
  maximum of (change points / length) in %, and the series above 1 % (the rule: p90 <= 1 %, max <= 2 %).
  Slow: auto, autoparm, bocpd and kcpa@tcpdbench take minutes of CPU (``--no-jmh`` skips the
  column, ``--no-jmh-for`` skips it for the methods named).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import segview
from segview.core import registry
from segview.core.evaluation.tcpd_metrics import covering, f_measure
from segview.core.io.detections import to_tcpdbench

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"

#: grids a default was chosen from on TCPD (leave-one-out re-chooses within them)
GRIDS: dict[str, list[dict]] = {
    "auto": [{"votes": k} for k in (2, 3, 4, 5)],
    "rfpop": [{"threshold": k, "penalty_factor": f} for k in (1.5, 2.0, 2.5, 3.0)
              for f in (1.0, 2.0, 3.0, 3.75, 4.0, 5.0, 6.0, 8.0)],
    **{m: [{"scale": s, "penalty": p} for s in ("zscore", "robust")
           for p in ("aic", "hq", "bic0", "bic", "mbic")] + [{"scale": "none", "penalty": "bic"}]
       for m in ("binseg", "pelt", "op")},
    # issue 28's flood measurement (tests/benchmarks/bench_flood_grid.py, docs/defaults.md): the
    # points measured on TCPD when these defaults were chosen
    "cpnp": [{"penalty_factor": f} for f in (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)]
    + [{"min_size": m, "penalty_factor": 1.0} for m in (2, 3, 5, 8, 10)],
    "kcpa": [{"cost": c, "max_cp": "max"} for c in (1.0, 10.0, 30.0, 100.0, 300.0, 1000.0,
                                                    1500.0, 2000.0, 2500.0, 3000.0, 4000.0,
                                                    5000.0, 6000.0, 8000.0, 10000.0)]
    + [{"cost": c, "max_cp": m} for c, m in ((3000.0, 5), (3000.0, 10), (3000.0, 20),
                                             (2500.0, 20), (1000.0, 5), (1.0, 5))],
    "wbs": [{"kmax": k, "criterion": "ssic"} for k in (50, 30, 20, 15, 10, 8, 6, 5, 4, 3)]
    + [{"kmax": k, "criterion": "mbic"} for k in (50, 20, 10, 5)]
    + [{"kmax": 20, "criterion": "bic"}],
    "bocpd": [{"hazard_lambda": h, "prior_alpha": 1.0, "prior_beta": 1.0}
              for h in (100.0, 300.0, 1000.0, 10000.0)]
    + [{"prior_alpha": a, "prior_beta": a} for a in (3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)]
    + [{"prior_alpha": 100.0, "prior_beta": 100.0, "hazard_lambda": 1000.0}],
}
#: slow methods whose TCPD scores are still computed (the development sets are short: seconds)
SLOW_BUT_SCORED = {"autoparm"}
#: TCPDBench's default configuration of each method, in words
TCPDBENCH = {
    "binseg": "scale(), cpt.mean MBIC, Q = 5", "pelt": "scale(), cpt.mean MBIC",
    "amoc": "scale(), cpt.mean MBIC", "segneigh": "scale(), cpt.mean BIC, Q = 5",
    "bocpd": "scale(), ocp lambda 100", "cpnp": "scale(), cpt.np, 10 quantiles",
    "rfpop": "robseg biweight, K = 3, 2 ln n", "zero": "no change",
    "wbs": "scale(), wbs M = 5000, Kmax 50, SSIC", "kcpa": "scale(), ecp kcpa C = 1, L = n",
    "ecp": "scale(), ecp e.divisive sig.lvl 0.05, R = 199, min.size 30, alpha 1",
}
#: parameters shown in the "default" column
SHOWN = {"scale", "penalty", "penalty_factor", "threshold", "votes", "window", "cost", "min_span",
         "mode", "min_size", "hazard_lambda", "kmax", "criterion", "max_cp", "prior_alpha",
         "prior_beta"}


from bench_defaults import tcpd_family  # noqa: E402  (one reader of the TCPD development sets)


def scores(fam, method: str, params: dict, preset: str | None = None) -> np.ndarray:
    rows = []
    for _, y, ann in fam:
        cps = to_tcpdbench(segview.detect(y, method, preset=preset, **params).change_points,
                           len(y), method)
        rows.append((f_measure(ann, cps)[0], covering(ann, cps, len(y))))
    return np.array(rows)


def leave_one_out(fam, method: str) -> tuple[float, float] | None:
    grid = GRIDS.get(method)
    if not grid:
        return None
    table = np.stack([scores(fam, method, p) for p in grid])  # grid x sets x 2
    picked = []
    for i in range(len(fam)):
        keep = np.ones(len(fam), bool)
        keep[i] = False
        j = int(np.argmax(table[:, keep, :].mean(axis=1).sum(axis=1)))
        picked.append(table[j, i])
    return tuple(np.mean(picked, axis=0))


def flood(method: str, preset: str | None = None) -> tuple[float, float, int]:
    shares = []
    for path in sorted((SHARED / "jmh" / "series").glob("*.json")):
        (s,) = segview.load(path)
        shares.append(len(segview.detect(s.values, method, preset=preset).change_points)
                      / len(s.values))
    a = 100 * np.array(shares)
    return float(np.percentile(a, 90)), float(a.max()), int((a > 1).sum())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--methods", default=",".join(sorted(
        s.name for s in registry.all_specs() if s.produces == "change_points")))
    ap.add_argument("--no-jmh", action="store_true")
    ap.add_argument("--no-jmh-for", default="", help="comma-separated methods without the JMH run")
    args = ap.parse_args(argv)
    no_jmh = set(filter(None, args.no_jmh_for.split(",")))
    fam = tcpd_family()
    names = [n for n, _, _ in fam]
    published = json.loads((SHARED / "tcpd" / "tcpdbench_default_all_methods.json").read_text())
    lines = ["| method | default | TCPDBench default | TCPDBench F1 / cover | F1 / cover in sample "
             "| F1 / cover leave one out | JMH p90 / max % of n (series > 1 %) |",
             "|---|---|---|---|---|---|---|"]
    for item in args.methods.split(","):
        method, _, preset = item.partition("@")
        preset = preset or None
        spec = registry.get(method)
        shown = spec.coerce({}, preset=preset)
        if preset:  # only what the preset changes from the default
            base = spec.defaults()
            shown = {k: v for k, v in shown.items() if v != base[k]}
        defaults = ", ".join(f"{k}={v}" for k, v in shown.items() if k in SHOWN)
        label = (f"{method} version {spec.version}" if not preset else
                 f"{method} (preset {preset})")
        pub = ""
        if method in published[names[0]]["f1"]:
            f = [published[n]["f1"][method] for n in names]
            c = [published[n]["cover"][method] for n in names]
            if None not in f and None not in c:
                pub = f"{np.mean(f):.3f} / {np.mean(c):.3f}"
        if spec.slow and method not in SLOW_BUT_SCORED:
            ins = loo_txt = "(slow: not run)"
        else:
            s = scores(fam, method, {}, preset).mean(axis=0)
            ins = f"{s[0]:.3f} / {s[1]:.3f}"
            loo = None if preset else leave_one_out(fam, method)
            loo_txt = f"= {ins}" if loo is None else f"{loo[0]:.3f} / {loo[1]:.3f}"
        jmh = ""
        if not args.no_jmh and method not in no_jmh and item not in no_jmh:
            p90, top, over = flood(method, preset)
            jmh = f"{p90:.2f} / {top:.2f} ({over})"
        lines.append(f"| {label} | {defaults or '-'} | {TCPDBENCH.get(method, '-')} | {pub} | "
                     f"{ins} | {loo_txt} | {jmh} |")
        print(lines[-1], file=sys.stderr, flush=True)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
