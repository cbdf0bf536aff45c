"""TCPDBench's published default F1 and cover of kcpa (and ecp), reproduced through the command
line: ``segview detect --preset tcpdbench --cp-index tcpdbench`` then ``segview evaluate
--cp-truth``. Expected values come from ``shared/data/tcpd/tcpdbench_default_all_methods.json``
(the benchmark's published scores), never from segview.

Where TCPDBench reports a score: every development data set, run_log (2-D) included. On
uk_coal_employ (two missing values) R's NA propagates through the distance matrix, both methods
return no change point, and TCPDBench scores that (equal to its ``zero`` method); segview refuses
a series with a missing value instead, so that data set is checked as that equality.

kcpa's bandwidth uses R's sample() when n > 250 and TCPDBench set no seed: the preset's seed 8
reproduces every score with ``==``; other seeds move bank, well_log and run_log by at most the
tolerance below (measured over seeds 1..20).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from segview.cli.main import main

# largest |difference| of F1 / cover from the published value over seeds 1..20 (kcpa)
KCPA_SEED_TOL = {"bank": (1.2e-4, 0.0), "well_log": (1.1e-4, 0.0), "run_log": (0.017, 0.0043)}


def _published(tcpd_dir: Path, method: str) -> dict[str, tuple[float, float]]:
    table = json.loads((tcpd_dir / "tcpdbench_default_all_methods.json").read_text())
    return {name: (per["f1"][method], per["cover"][method])
            for name, per in table.items() if per["f1"][method] is not None}


def _scores(tcpd_dir: Path, tmp: Path, method: str, *extra: str) -> dict[str, tuple[float, float]]:
    pred, out = tmp / f"{method}.csv", tmp / f"{method}.json"
    datasets = str(tcpd_dir / "datasets")
    rc = main(["detect", datasets, "-m", method, "--preset", "tcpdbench", "--cp-index",
               "tcpdbench", "-o", str(pred), *extra])
    assert rc == 1  # uk_coal_employ: a missing value
    rc = main(["evaluate", "--cp-truth", str(tcpd_dir / "annotations.json"), str(pred),
               "--series", datasets, "--format", "json", "-o", str(out)])
    assert rc == 1
    js = json.loads(out.read_text())
    return {r["series_id"]: (r["f1"], r["cover"]) for r in js["series"]}


def test_missing_values_score_as_no_change_in_tcpdbench(tcpd_dir):
    table = json.loads((tcpd_dir / "tcpdbench_default_all_methods.json").read_text())
    row = table["uk_coal_employ"]
    for m in ("ecp", "kcpa"):
        assert (row["f1"][m], row["cover"][m]) == (row["f1"]["zero"], row["cover"]["zero"])


# ecp's permutation test is random and TCPDBench set no seed: seed 4 (the preset) reproduces every
# published score; with seed 1 only well_log moves (one change point fewer: p = 0.065 > 0.05).
ECP_SEED1_TOL = {"well_log": (0.032, 0.054)}


@pytest.mark.parametrize("method", ["kcpa", "ecp"])
def test_published_default_scores_reproduced_exactly(tcpd_dir, tmp_path, method):
    expected = _published(tcpd_dir, method)
    assert len(expected) == 14
    got = _scores(tcpd_dir, tmp_path, method)
    assert len(got) == 13
    for name, (f1, cover) in expected.items():
        if name == "uk_coal_employ":
            continue
        assert got[name] == (f1, cover), name


# seed 1: kcpa moves only the 2-D series, ecp only well_log
@pytest.mark.parametrize("method,tol,moved", [("kcpa", KCPA_SEED_TOL, {"run_log"}),
                                              ("ecp", ECP_SEED1_TOL, {"well_log"})])
def test_seed_1_within_stated_tolerance(tcpd_dir, tmp_path, method, tol, moved):
    expected = _published(tcpd_dir, method)
    got = _scores(tcpd_dir, tmp_path, method, "--param", "seed=1")
    differ = set()
    for name, (f1, cover) in got.items():
        tf, tc = tol.get(name, (0.0, 0.0))
        assert abs(f1 - expected[name][0]) <= tf and abs(cover - expected[name][1]) <= tc, name
        if (f1, cover) != expected[name]:
            differ.add(name)
    assert differ == moved
