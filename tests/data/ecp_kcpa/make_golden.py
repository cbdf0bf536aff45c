"""Make golden.json: R ecp 3.1.1's kcpa and e.divisive on the TCPD development data sets.

R and ecp are needed only here (the tests read golden.json). ecp 3.1.1 and Rcpp were built from
source (``R CMD INSTALL``; CRAN's cran/ecp mirror at the 3.1.1 commit) into a library on R_LIBS.

    R_LIBS=/path/to/lib python make_golden.py [--out-dir DIR] [--assemble]

For each data set the raw values are written one row per line (``repr``, so R reads the same
doubles), ``make_golden.R`` runs the method once per seed and writes ``SEED KEY VALUES...`` lines,
and the lines are collected into golden.json:
``{"kcpa": {name: {seed: [0-based change points]}}, "ecp": {name: {seed: {"cps": [...],
"order": [...], "p_values": [...]}}}}``; change points are R's estimates minus 1 without 0 and n.
``--assemble`` only collects existing output files (the runs of kcpa on the longest sets take R
minutes each: R sums every block of the kernel matrix afresh, O(n^4)).
"""
from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TCPD = HERE.parents[3] / "shared" / "data" / "tcpd" / "datasets"
SEEDS = {"kcpa": "1", "ecp": "1,2,3,4,5"}


def write_values(path: Path, out: Path) -> int:
    d = json.loads(path.read_text())
    cols = [s["raw"] for s in d["series"]]
    with out.open("w") as f:
        for row in zip(*cols):
            f.write(" ".join("NA" if v is None else repr(float(v)) for v in row) + "\n")
    return int(d["n_obs"])


def parse(path: Path, algo: str, n: int) -> dict:
    runs: dict = {}
    for line in path.read_text().splitlines():
        seed, key, *vals = line.split()
        run = runs.setdefault(seed, {})
        if key in ("cps", "est", "order"):
            cps = [int(v) - 1 for v in vals]
            run[key] = [c for c in cps if 0 < c < n] if key != "order" else cps[2:]
        elif key == "pvals":
            run["p_values"] = [float(v) for v in vals]
    if algo == "kcpa":
        return {s: r["cps"] for s, r in runs.items()}
    return {s: {"cps": r["est"], "order": r["order"], "p_values": r["p_values"]}
            for s, r in runs.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out-dir", type=Path, default=Path("/tmp/ecp_golden"))
    ap.add_argument("--assemble", action="store_true")
    args = ap.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    golden: dict = {"kcpa": {}, "ecp": {}}
    for path in sorted(TCPD.glob("*.json")):
        name = path.stem
        data = args.out_dir / f"{name}.txt"
        n = write_values(path, data)
        for algo in ("kcpa", "ecp"):
            out = args.out_dir / f"{name}_{algo}.txt"
            if not args.assemble:
                subprocess.run(["Rscript", str(HERE / "make_golden.R"), str(data), algo,
                                SEEDS[algo], str(out)], check=True)
            if out.exists():
                golden[algo][name] = parse(out, algo, n)
    (HERE / "golden.json").write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
