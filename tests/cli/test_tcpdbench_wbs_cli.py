"""TCPDBench's published default F1 and cover of ``wbs`` through the command line.

WBS draws its intervals at random and TCPDBench's wrapper sets no seed (R seeded each run from the
clock), so the published numbers are one draw of R's. segview reproduces R's generator: with the
seed of an R run, ``segview detect --preset tcpdbench --param seed=S`` gives that run's change
points (tests/core/test_wbs.py checks them against R). Here:

* with, per data set, the first seed under which R itself (``tests/data/wbs/wbs_seed_study.json``,
  R's change points for seeds 1..200) scores exactly the published F1 and cover, segview reproduces
  all 12 published pairs with ``==``;
* with the preset's own seed (1) the scores are R's seed-1 scores, equal to the published ones on 9
  of the 12 data sets (on 6 every one of R's 200 seeds scores the published values); on the other
  three they differ by no more than R's own spread over seeds, the stated tolerance.

Expected values come from ``shared/data/tcpd/tcpdbench_default_all_methods.json`` and R's output,
never from segview; uk_coal_employ (missing values) and the 2-D run_log have no wbs score.
"""
from __future__ import annotations

import json
from pathlib import Path

from segview.cli.main import main
from segview.core.evaluation.tcpd_metrics import covering, f_measure
from segview.core.io.detections import to_tcpdbench

STUDY = Path(__file__).resolve().parents[1] / "data" / "wbs" / "wbs_seed_study.json"
#: data set -> a seed under which R's wbs scores the published F1 and cover (checked below)
R_SEEDS = {"brent_spot": 15, "co2_canada": 17, "well_log": 4}
#: data sets whose published scores differ from R's seed-1 scores
SEED_SENSITIVE = set(R_SEEDS)


def _published(tcpd_dir: Path) -> dict[str, tuple[float, float]]:
    table = json.loads((tcpd_dir / "tcpdbench_default_all_methods.json").read_text())
    return {name: (per["f1"]["wbs"], per["cover"]["wbs"]) for name, per in table.items()
            if per["f1"]["wbs"] is not None}


def _r_scores(tcpd_dir: Path) -> dict[str, list[tuple[float, float, int, int]]]:
    """R's outcomes over seeds 1..200 scored with TCPDBench's metrics: (f1, cover, count, first
    seed) per distinct set of change points."""
    ann = json.loads((tcpd_dir / "annotations.json").read_text())
    out = {}
    for name, outcomes in json.loads(STUDY.read_text())["datasets"].items():
        n = json.loads((tcpd_dir / "datasets" / f"{name}.json").read_text())["n_obs"]
        out[name] = []
        for o in outcomes:
            loc = to_tcpdbench(o["cpts"], n, "wbs")
            out[name].append((f_measure(ann[name], loc)[0], covering(ann[name], loc, n),
                              o["count"], o["first_seed"]))
    return out


def _segview_scores(tcpd_dir: Path, tmp: Path, names: list[str], seed: int | None
                    ) -> dict[str, tuple[float, float]]:
    pred, out = tmp / f"pred_{seed}.csv", tmp / f"scores_{seed}.json"
    files = [str(tcpd_dir / "datasets" / f"{n}.json") for n in names]
    extra = [] if seed is None else ["--param", f"seed={seed}"]
    rc = main(["detect", *files, "-m", "wbs", "--preset", "tcpdbench", *extra,
               "--cp-index", "tcpdbench", "-o", str(pred)])
    assert rc == 0
    main(["evaluate", "--cp-truth", str(tcpd_dir / "annotations.json"), str(pred),
          "--series", str(tcpd_dir / "datasets"), "--format", "json", "-o", str(out)])
    js = json.loads(out.read_text())
    return {r["series_id"]: (r["f1"], r["cover"]) for r in js["series"] if r["method"] == "wbs"}


def test_r_itself_scores_the_published_values_under_these_seeds(tcpd_dir):
    published = _published(tcpd_dir)
    r = _r_scores(tcpd_dir)
    assert set(r) == set(published) and len(published) == 12
    for name, (f1, cover) in published.items():
        seed = R_SEEDS.get(name, 1)
        first = [s for s in r[name] if (s[0], s[1]) == (f1, cover)]
        assert first and min(s[3] for s in first) == seed, name


def test_published_default_scores_reproduced_exactly_with_r_seeds(tcpd_dir, tmp_path):
    published = _published(tcpd_dir)
    got = _segview_scores(tcpd_dir, tmp_path, [n for n in published if n not in R_SEEDS], 1)
    for name, seed in R_SEEDS.items():
        got.update(_segview_scores(tcpd_dir, tmp_path, [name], seed))
    assert set(got) == set(published)
    matched = [name for name in published if got[name] == published[name]]
    assert len(matched) == 12, sorted(set(published) - set(matched))


def test_preset_seed_gives_r_seed_one_within_r_spread_of_published(tcpd_dir, tmp_path):
    published = _published(tcpd_dir)
    r = _r_scores(tcpd_dir)
    got = _segview_scores(tcpd_dir, tmp_path, sorted(published), None)  # the preset: seed 1
    for name, (f1, cover) in published.items():
        seed_one = [s for s in r[name] if s[3] == 1][0]
        assert got[name] == seed_one[:2], name  # R's own seed-1 run
        if name in SEED_SENSITIVE:
            f1s, covers = [s[0] for s in r[name]], [s[1] for s in r[name]]
            assert got[name] != (f1, cover)
            # tolerance: R's spread over seeds 1..200, which contains the published draw
            assert min(f1s) <= f1 <= max(f1s) and min(covers) <= cover <= max(covers)
            assert abs(got[name][0] - f1) <= max(f1s) - min(f1s)
            assert abs(got[name][1] - cover) <= max(covers) - min(covers)
        else:
            assert got[name] == (f1, cover), name
    # on six data sets every one of R's 200 seeds scores the published values
    seed_free = [n for n in r if all(s[:2] == published[n] for s in r[n])]
    assert sorted(seed_free) == ["bank", "debt_ireland", "gdp_argentina", "global_co2", "nile",
                                 "quality_control_2"]
