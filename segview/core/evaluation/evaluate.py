"""One evaluation run: binary counts, onset errors and pairwise tests for every onset method, and
the TCPD change-point metrics when multi-annotator change-point truth is given.

The JSON form (:meth:`EvaluationReport.to_json_dict`) is
``{"methods": {NAME: {agreement, false_positive, false_negative, true_positive, true_negative,
n_common, total_abs_error, clustered_abs_error, scattered_abs_error, mean_raw_error, std_raw_error,
mean_abs_error, std_abs_error}}, "tests": [...]}`` plus ``scoring``, ``details`` and ``tcpd``.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from .metrics import (BinaryCounts, ErrorSummary, Onsets, ScoreMode, TruthRow, as_dict,
                      binary_counts, check_inputs, method_agreements, scored_series,
                      summarize_errors, total_agreements)
from .stats_tests import TestResult, compare_errors
from .tcpd_metrics import covering, f_measure

METHOD_KEYS = ("agreement", "false_positive", "false_negative", "true_positive", "true_negative",
               "n_common", "total_abs_error", "clustered_abs_error", "scattered_abs_error",
               "mean_raw_error", "std_raw_error", "mean_abs_error", "std_abs_error")


@dataclass
class EvaluationReport:
    """Everything ``segview evaluate`` prints."""

    methods: list[str]
    mode: ScoreMode
    counts: dict[str, BinaryCounts]
    errors: dict[str, ErrorSummary]
    tests: list[TestResult]
    total_agreements: int
    method_agreements: int
    n_series: int
    tcpd: dict[str, dict[str, float]] = field(default_factory=dict)
    tcpd_series: list[dict[str, Any]] = field(default_factory=list)

    def method_row(self, name: str) -> dict[str, Any]:
        c, e = self.counts[name], self.errors[name]
        row = {k: getattr(c, k) for k in METHOD_KEYS[:5]}
        row["n_common"] = e.n
        row.update({k: getattr(e, k) for k in METHOD_KEYS[6:]})
        return row

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "methods": {m: self.method_row(m) for m in self.methods},
            "tests": [t.to_dict() for t in self.tests],
            "scoring": {"mode": self.mode, "n_series": self.n_series,
                        "n_scored": {m: self.errors[m].n for m in self.methods},
                        "total_agreements": self.total_agreements,
                        "method_agreements": self.method_agreements},
            "details": {m: {**as_dict(self.counts[m]), **as_dict(self.errors[m])}
                        for m in self.methods},
            "tcpd": self.tcpd,
            "tcpd_series": self.tcpd_series,
        }


def evaluate_onsets(truth: Mapping[str, TruthRow], predictions: Mapping[str, Onsets],
                    methods: Sequence[str] | None = None,
                    mode: ScoreMode = "joint") -> EvaluationReport:
    """Evaluate onset methods against the truth.

    Args:
        truth: ground truth keyed by series id (defines the evaluated series).
        predictions: ``{method: {series_id: onset | None}}``.
        methods: methods to evaluate, in report order (default: all, in mapping order).
        mode: ``"joint"`` scores onset errors where the truth and every method are steady (the
            paper; paired tests possible); ``"own"`` uses each method's own steady series (pairwise
            tests then use the series both methods of the pair call steady).

    Raises:
        InputError: unknown method, missing predictions, bad truth.
    """
    names = list(methods) if methods is not None else list(predictions)
    if not names:
        raise InputError("predictions", "no onset method to evaluate")
    for m in names:
        if m not in predictions:
            raise InputError("method", f"{m!r} is not in the predictions "
                                       f"(have: {', '.join(predictions) or 'none'})")
    chosen = {m: predictions[m] for m in names}
    check_inputs(truth, chosen)
    counts = {m: binary_counts(truth, chosen[m]) for m in names}
    errors: dict[str, ErrorSummary] = {}
    joint = scored_series(truth, chosen, mode="joint")
    for m in names:
        ids = joint if mode == "joint" else scored_series(truth, chosen, m, "own")
        errors[m] = summarize_errors(truth, chosen[m], ids)
    tests: list[TestResult] = []
    for a, b in itertools.combinations(names, 2):
        ids = joint if mode == "joint" else scored_series(truth, {a: chosen[a], b: chosen[b]})
        if len(ids) < 2:
            continue
        ea = summarize_errors(truth, chosen[a], ids).errors
        eb = summarize_errors(truth, chosen[b], ids).errors
        tests += compare_errors(ea, eb, a, b)
    return EvaluationReport(methods=names, mode=mode, counts=counts, errors=errors, tests=tests,
                            total_agreements=total_agreements(truth, chosen),
                            method_agreements=method_agreements(truth, chosen),
                            n_series=len(truth))


#: Columns of the per-series change-point rows (``segview evaluate --cp-truth``).
CP_ROW_KEYS = ("series_id", "method", "n_obs", "n_annotators", "n_predicted", "f1", "precision",
               "recall", "cover")


def score_change_points(cp_truth: Mapping[str, Mapping[str, Sequence[int]]],
                        cp_predictions: Mapping[str, Mapping[str, Sequence[int]]],
                        lengths: Mapping[str, int] | None = None, margin: int = 5,
                        methods: Sequence[str] | None = None
                        ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """TCPD F1 (with ``margin``) and cover of every (method, annotated series) pair.

    Returns:
        ``(rows, summary)``: one row per method and series that is both annotated and predicted
        (keys :data:`CP_ROW_KEYS`; ``cover`` and ``n_obs`` are None without a length), in method
        order, then annotation order; ``summary[method]`` holds the means and how many series each
        is over: ``n_series`` (F1, precision, recall), ``n_cover`` (cover), and ``missing`` (the
        annotated series the method has no prediction for).
    """
    rows: list[dict[str, Any]] = []
    summary: dict[str, dict[str, Any]] = {}
    for method in (methods if methods is not None else list(cp_predictions)):
        per_series = cp_predictions.get(method, {})
        ids = [s for s in cp_truth if s in per_series]
        if not ids:
            continue
        mine: list[dict[str, Any]] = []
        for sid in ids:
            pred = list(per_series[sid])
            f, p, r = f_measure(cp_truth[sid], pred, margin=margin)
            n = int(lengths[sid]) if lengths is not None and sid in lengths else None
            mine.append({"series_id": sid, "method": method, "n_obs": n,
                         "n_annotators": len(cp_truth[sid]), "n_predicted": len(set(pred)),
                         "f1": f, "precision": p, "recall": r,
                         "cover": None if n is None else covering(cp_truth[sid], pred, n)})
        covs = [row["cover"] for row in mine if row["cover"] is not None]
        summary[method] = {
            "n_series": len(mine), "f1": sum(r["f1"] for r in mine) / len(mine),
            "precision": sum(r["precision"] for r in mine) / len(mine),
            "recall": sum(r["recall"] for r in mine) / len(mine),
            "cover": sum(covs) / len(covs) if covs else None, "n_cover": len(covs),
            "missing": [s for s in cp_truth if s not in per_series], "margin": margin}
        rows += mine
    return rows, summary


def evaluate_change_points(cp_truth: Mapping[str, Mapping[str, Sequence[int]]],
                           cp_predictions: Mapping[str, Mapping[str, Sequence[int]]],
                           lengths: Mapping[str, int] | None = None,
                           margin: int = 5) -> dict[str, dict[str, float]]:
    """Mean TCPD F1 (with ``margin``) and cover per method over the annotated series it predicted
    (:func:`score_change_points` has the per-series rows).

    Cover needs series lengths; without ``lengths`` only F1, precision and recall are given.
    """
    out: dict[str, dict[str, float]] = {}
    for method, sm in score_change_points(cp_truth, cp_predictions, lengths, margin)[1].items():
        row = {"n_series": float(sm["n_series"]), "f1": sm["f1"], "precision": sm["precision"],
               "recall": sm["recall"], "margin": float(margin)}
        if sm["n_cover"]:
            row["cover"] = sm["cover"]
            row["n_cover"] = float(sm["n_cover"])
        out[method] = row
    return out
