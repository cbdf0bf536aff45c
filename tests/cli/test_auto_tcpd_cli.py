"""``auto``, segview's default change-point method, against TCPDBench's best published default
(issue 28 point 4): through the command line with no ``--method`` (auto is the default), locations
reported as TCPDBench reports them, scored by ``segview evaluate``. Mean F1 and mean cover over the
12 univariate complete development data sets must both be above the best published default method on
each metric; the published figures are computed here from
``shared/data/tcpd/tcpdbench_default_all_methods.json`` (binseg: 0.728 F1, 0.720 cover), never taken
from segview."""
from __future__ import annotations

import json

import numpy as np
import pytest

import segview
from segview.cli.main import main

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def scored(tcpd_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("auto_tcpd")
    pred, out = tmp / "pred.csv", tmp / "scores.json"
    datasets = str(tcpd_dir / "datasets")
    rc = main(["detect", datasets, "--cp-index", "tcpdbench", "-o", str(pred)])
    assert rc == 1  # uk_coal_employ has missing values; run_log is two-dimensional
    rc = main(["evaluate", "--cp-truth", str(tcpd_dir / "annotations.json"), str(pred),
               "--series", datasets, "--format", "json", "-o", str(out)])
    assert rc == 1
    rows = json.loads(out.read_text())["series"]
    assert {r["method"] for r in rows} == {"auto"}
    return {r["series_id"]: (r["f1"], r["cover"]) for r in rows}


def _published(tcpd_dir):
    table = json.loads((tcpd_dir / "tcpdbench_default_all_methods.json").read_text())
    # the 12 univariate complete data sets: those where R changepoint's binseg has a score
    names = sorted(n for n, per in table.items() if per["f1"]["binseg"] is not None)
    methods = sorted(table[names[0]]["f1"])
    means = {}
    for m in methods:
        f1 = [table[n]["f1"][m] for n in names]
        cover = [table[n]["cover"][m] for n in names]
        if None not in f1 and None not in cover:
            means[m] = (float(np.mean(f1)), float(np.mean(cover)))
    return names, means


def test_auto_beats_the_best_published_default_on_both_metrics(tcpd_dir, scored):
    names, means = _published(tcpd_dir)
    assert len(names) == 12
    best_f1 = max(v[0] for v in means.values())
    best_cover = max(v[1] for v in means.values())
    assert round(best_f1, 3) == 0.728 and round(best_cover, 3) == 0.720  # binseg, per the issue
    f1 = float(np.mean([scored[n][0] for n in names]))
    cover = float(np.mean([scored[n][1] for n in names]))
    assert f1 > best_f1 and cover > best_cover, (f1, cover, best_f1, best_cover)


def test_negated_series_give_the_same_change_points(tcpd_dir):
    """Affine invariance with a < 0 on real data (brent_spot made cpnp alone differ)."""
    (s,) = segview.load(tcpd_dir / "datasets" / "brent_spot.json")
    ref = list(segview.detect(s.values, "auto").change_points)
    assert list(segview.detect(-2.5 * s.values + 100.0, "auto").change_points) == ref
