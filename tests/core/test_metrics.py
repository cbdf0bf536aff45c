"""Metric functions on the spec's worked mini-example (evaluation.md §2.4) and known values."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core.errors import InputError
from segview.core.evaluation import metrics as M
from segview.core.evaluation.evaluate import METHOD_KEYS, evaluate_change_points, evaluate_onsets
from segview.core.evaluation.stats_tests import benjamini_hochberg, compare_errors, sign_test
from segview.core.evaluation.tcpd_metrics import covering, covering_single, f_measure, true_positives

TRUTH = {
    "s1": M.TruthRow("s1", True, 100, True),
    "s2": M.TruthRow("s2", True, 500, False),
    "s3": M.TruthRow("s3", False),
    "s4": M.TruthRow("s4", True, 1000, False),
}
KB = {"s1": 90, "s2": None, "s3": 20, "s4": 1200}
CP = {"s1": 130, "s2": 450, "s3": None, "s4": 1000}
PRED = {"KB": KB, "CP": CP}


def test_binary_counts_mini_example():
    kb = M.binary_counts(TRUTH, KB)
    assert (kb.agreement, kb.false_positive, kb.false_negative) == (2, 1, 1)
    assert (kb.false_negative_clustered, kb.false_negative_scattered) == (0, 1)
    assert (kb.true_positive, kb.true_negative) == (2, 0)
    cp = M.binary_counts(TRUTH, CP)
    assert (cp.agreement, cp.false_positive, cp.false_negative) == (4, 0, 0)
    assert M.total_agreements(TRUTH, PRED) == 2
    assert M.method_agreements(TRUTH, PRED) == 0


def test_scored_set_and_errors_mini_example():
    ids = M.scored_series(TRUTH, PRED)
    assert ids == ["s1", "s4"]
    assert list(M.onset_errors(TRUTH, KB, ids)) == [10, -200]
    assert list(M.onset_errors(TRUTH, CP, ids)) == [-30, 0]
    kb, cp = M.summarize_errors(TRUTH, KB, ids), M.summarize_errors(TRUTH, CP, ids)
    assert (kb.total_abs_error, kb.clustered_abs_error, kb.scattered_abs_error) == (210, 10, 200)
    assert (cp.total_abs_error, cp.clustered_abs_error, cp.scattered_abs_error) == (30, 30, 0)
    # population moments (ddof=0) and mean ± 2 std
    assert kb.mean_raw_error == -95.0 and kb.std_raw_error == 105.0
    assert kb.range95_raw == (-305.0, 115.0)
    assert kb.mean_abs_error == 105.0 and kb.std_abs_error == 95.0
    # each method's own steady set
    assert M.scored_series(TRUTH, PRED, "CP", mode="own") == ["s1", "s2", "s4"]


def test_evaluate_report_shape_and_paired_difference():
    rep = evaluate_onsets(TRUTH, PRED, ["KB", "CP"])
    js = rep.to_json_dict()
    assert list(js["methods"]) == ["KB", "CP"]
    assert tuple(js["methods"]["KB"]) == METHOD_KEYS
    assert js["methods"]["KB"]["n_common"] == 2 and js["methods"]["CP"]["total_abs_error"] == 30
    sign = [t for t in rep.tests if t.test == "sign" and t.family == "raw"][0]
    # Δ = e_CP - e_KB = [-40, 200]: one of two non-zero pairs positive
    assert sign.statistic == 0.5 and sign.p_value == pytest.approx(1.0)
    own = evaluate_onsets(TRUTH, PRED, mode="own")
    assert own.errors["CP"].n == 3 and own.errors["CP"].total_abs_error == 80


def test_bad_inputs_are_named():
    with pytest.raises(InputError, match="s4"):
        M.binary_counts(TRUTH, {"s1": 1, "s2": 2, "s3": 3})
    with pytest.raises(InputError, match="reference"):
        M.binary_counts({"x": M.TruthRow("x", True)}, {"x": 1})
    with pytest.raises(InputError, match="nope"):
        evaluate_onsets(TRUTH, PRED, ["nope"])


def test_sign_test_counts_drop_zeros():
    frac, p, k, n = sign_test([1, 2, 0, -1, 3])
    assert (k, n, frac) == (3, 4, 0.75) and p == pytest.approx(0.625)


def test_benjamini_hochberg_spec_values():
    # evaluation.md §2.3: raw p-values (sign, CvM, KS, AD, Levene) and their BH adjustments
    raw = [0.0034986, 0.036706, 0.018511, 0.011283, 0.012906]
    assert benjamini_hochberg(raw) == pytest.approx(
        [0.017493, 0.036706, 0.023139, 0.021510, 0.021510], abs=2e-6)


def test_compare_errors_families_and_calls():
    rng = np.random.default_rng(1)
    a = rng.normal(0, 10, 60).round()
    b = a + rng.normal(3, 5, 60).round()
    res = compare_errors(a, b, "A", "B")
    names = {(t.family, t.test) for t in res}
    for fam in ("raw", "abs"):
        for t in ("shapiro_wilk", "skewness", "sign", "cramer_von_mises", "kolmogorov_smirnov",
                  "anderson_darling", "levene"):
            assert (fam, t) in names
    raw = [t for t in res if t.family == "raw" and t.p_adjusted is not None]
    assert len(raw) == 5 and all(t.p_adjusted >= t.p_value for t in raw)
    with pytest.raises(InputError):
        compare_errors([1, 2, 3], [1, 2])


def test_true_positives_no_double_counting():
    # values from the TCPD benchmark's documentation of its metric
    assert true_positives({1, 10, 20, 23}, {3, 8, 20}) == {1, 10, 20}
    assert true_positives({1, 10, 20, 23}, {1, 3, 8, 20}) == {1, 10, 20}
    assert true_positives({1, 10, 20, 23}, {1, 3, 5, 8, 20}) == {1, 10, 20}
    assert true_positives(set(), {1, 2, 3}) == set()


def test_f_measure_hand_computed():
    ann = {"a": [10, 20], "b": [11, 20], "c": [10], "d": [0, 5]}
    # margin 3, predictions {0,10,20}: P = 3/3; recall per annotator 1, 1, 1, 1/2 -> R = 7/8
    f, p, r = f_measure(ann, [10, 20], margin=3)
    assert p == 1.0 and r == 0.875 and f == pytest.approx(2 * 0.875 / 1.875)
    # no predictions: only the added start 0, which matches truth 0 but cannot also match 5
    f5, p5, r5 = f_measure({"x": [5]}, [], margin=5)
    assert (p5, r5) == (1.0, 0.5)


def test_covering_hand_computed():
    # truth segments [0,50),[50,100); prediction one segment [0,100): J = 0.5 each -> cover 0.5
    assert covering_single([50], [], 100) == 0.5
    assert covering_single([50], [50], 100) == 1.0
    # truth [0,100) vs prediction [0,30),[30,100): 100 * 0.7 / 100
    assert covering_single([], [30], 100) == pytest.approx(0.7)
    assert covering({"a": [50], "b": []}, [50], 100) == pytest.approx((1.0 + 0.5) / 2)
    with pytest.raises(InputError):
        covering_single([150], [], 100)


def test_evaluate_change_points():
    out = evaluate_change_points({"s": {"a": [50], "b": [52]}}, {"m": {"s": [51]}}, {"s": 100})
    assert out["m"]["f1"] == 1.0 and out["m"]["cover"] > 0.95
