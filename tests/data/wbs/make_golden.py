"""Write wbs_r_golden.json (and, with --seed-study N, wbs_seed_study.json) from R wbs 1.4.1.

Needs R and the wbs package source (github cran/wbs, version 1.4.1) built into a library folder:
``R CMD INSTALL -l LIB wbs-src``. Run once from the worktree root::

    python tests/data/wbs/make_golden.py LIB [--seed-study 200]

The tests read only the JSON files; they never run R. Series are the univariate TCPD development
data sets (../shared/data/tcpd, via the ``SEGVIEW_TCPD_DIR`` folder) plus a seeded synthetic
3,000-point series; each goes to R as exact hexadecimal doubles and R standardises it with
``scale()``, as TCPDBench does.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TCPD = Path(os.environ.get("SEGVIEW_TCPD_DIR", HERE.parents[3] / ".." / "shared" / "data" / "tcpd"))
SKIP = {"run_log", "uk_coal_employ"}  # 2-D; missing values: TCPDBench has no wbs score for them


def synthetic_3000() -> list[float]:
    rng = np.random.default_rng(20141)
    means = np.repeat(rng.normal(0, 2, 12), 250)
    return list(means + rng.standard_normal(3000))


def series() -> dict[str, list[float]]:
    out = {}
    for f in sorted((TCPD / "datasets").glob("*.json")):
        if f.stem in SKIP:
            continue
        js = json.loads(f.read_text())
        out[f.stem] = [float(v) for v in js["series"][0]["raw"]]
    out["synthetic_3000"] = synthetic_3000()
    return out


def run_r(lib: str, data: dict[str, list[float]], seeds: list[int], full_res: list[str]):
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as fh:
        for name, vals in data.items():
            fh.write(f"{name}\t{','.join(map(str, seeds))}\t{','.join(v.hex() for v in vals)}\n")
        path = fh.name
    try:
        out = subprocess.run(["Rscript", "--no-save", str(HERE / "make_golden.R"), lib, path,
                              ",".join(full_res) or "-"],
                             check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    rows = []
    for line in out.splitlines():
        key, name, seed, txt = line.split("\t")
        vals = [] if not txt else txt.split(",")
        rows.append((key, name, int(seed), vals))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("lib", help="R library folder holding wbs 1.4.1")
    ap.add_argument("--seed-study", type=int, default=0)
    a = ap.parse_args()
    data = series()
    rows = run_r(a.lib, data, [1, 2, 3], ["nile"])
    gold: dict = {"package": "wbs 1.4.1", "R": "4.2.2", "runif": {}, "intervals": {},
                  "series": {k: [v.hex() for v in vals] for k, vals in data.items()
                             if k == "synthetic_3000"},
                  "runs": {}}
    for key, name, seed, vals in rows:
        if key == "runif":
            gold["runif"][str(seed)] = vals
        elif key == "intervals":
            gold["intervals"][str(seed)] = [int(v) for v in vals]
        elif key == "revsort_in":
            gold["revsort"] = {"values": vals}
        elif key == "revsort_ib":
            gold["revsort"]["order"] = [int(v) for v in vals]  # 1-based, as R's ib
        else:
            if key.startswith("ic.") and seed != 1:
                continue  # the criterion curves of seed 1 suffice (keeps the file small)
            run = gold["runs"].setdefault(name, {}).setdefault(str(seed), {})
            hexes = key.startswith("ic.") or key.startswith("res")
            run[key] = vals if hexes else [int(v) for v in vals]
    (HERE / "wbs_r_golden.json").write_text(json.dumps(gold, indent=1) + "\n")
    if a.seed_study:
        tcpd = {k: v for k, v in data.items() if k != "synthetic_3000"}
        rows = run_r(a.lib, tcpd, list(range(1, a.seed_study + 1)), [])
        study: dict = {"seeds": f"1..{a.seed_study}", "datasets": {}}
        for key, name, seed, vals in rows:
            if key != "ssic.penalty":
                continue
            d = study["datasets"].setdefault(name, {})
            d.setdefault(",".join(vals), []).append(seed)
        for name, d in study["datasets"].items():
            study["datasets"][name] = sorted(
                ({"cpts": [int(v) for v in k.split(",")] if k else [], "count": len(s),
                  "first_seed": s[0]} for k, s in d.items()), key=lambda r: -r["count"])
        (HERE / "wbs_seed_study.json").write_text(json.dumps(study) + "\n")


if __name__ == "__main__":
    main()
