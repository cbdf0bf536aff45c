"""TCPDBench's F1 and cover, to the last bit: the values its own documentation states, its published
scores recomputed from its published change-point locations, and the two details that matter
(set-iteration order, ``(1/K)*sum`` recall)."""
from __future__ import annotations

import json

from segview.core.evaluation.tables import read_cp_truth
from segview.core.evaluation.tcpd_metrics import covering, f_measure
from segview.core.io.detections import from_tcpdbench, to_tcpdbench


def test_values_stated_by_tcpdbench():
    # the examples in the docstrings of TCPDBench's analysis/scripts/metrics.py
    assert f_measure({1: [10, 20], 2: [11, 20], 3: [10], 4: [0, 5]}, [10, 20])[0] == 1.0
    assert f_measure({1: [], 2: [10], 3: [50]}, [10])[0] == 0.9090909090909091
    assert f_measure({1: [], 2: [10], 3: [50]}, [])[0] == 0.8
    assert covering({1: [10, 20], 2: [10], 3: [0, 5]}, [10, 20], 45) == 0.7962962962962963
    assert covering({1: [], 2: [10], 3: [40]}, [10], 45) == 0.7954144620811286
    assert covering({1: [], 2: [10], 3: [40]}, [], 45) == 0.8189300411522634


def test_set_iteration_order_decides_competing_matches():
    # true points 7 and 10 both within margin 3 of the prediction 8. CPython iterates {7, 10, 0}
    # as 0, 10, 7 (slots by value mod 8), so 10 takes 8 and 7 still finds 5: all three match.
    # Visiting in ascending order instead, 7 would take 8 and 10 would find nothing (F1 2/3).
    assert list({7, 10, 0}) == [0, 10, 7]
    assert f_measure({"a": [7, 10]}, [5, 8], margin=3) == (1.0, 1.0, 1.0)


def test_recall_is_one_over_k_times_sum():
    # five annotators, one of them with two points the start cannot match: the two formulas differ
    ann = {"a": [], "b": [], "c": [], "d": [], "e": [96, 97]}
    f, p, r = f_measure(ann, [])
    assert r == 1 / 5 * sum([1.0, 1.0, 1.0, 1.0, 1 / 3])
    assert r != sum([1.0, 1.0, 1.0, 1.0, 1 / 3]) / 5


def test_index_conversion():
    assert to_tcpdbench([1, 2, 50, 99], 100) == [1, 49, 98]  # cp 1 would be location 0: dropped
    assert from_tcpdbench([1, 49, 98]) == [2, 50, 99]


def test_published_scores_from_published_locations(tcpd_dir):
    annotations = read_cp_truth(tcpd_dir / "annotations.json")
    published = json.loads((tcpd_dir / "tcpdbench_default_results.json").read_text())
    checked = 0
    for name, entry in published.items():
        for method, res in entry["methods"].items():
            if res["status"] != "SUCCESS":
                continue
            f1 = f_measure(annotations[name], res["cplocations"])[0]
            cover = covering(annotations[name], res["cplocations"], entry["n_obs"])
            assert (f1, cover) == (res["f1"], res["cover"]), (name, method)
            checked += 1
    assert checked == 50
