"""Qt table models of the evaluation view: per-method summary, pairwise tests, per-series errors.

Every cell keeps its raw value under :data:`VALUE_ROLE` (what the tests compare with the core's
report) and a numeric sort key under :data:`SORT_ROLE`; the display text is formatted for reading.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from ...core.evaluation.evaluate import METHOD_KEYS, EvaluationReport
from ...core.evaluation.inputs import Onsets
from ...core.evaluation.metrics import TruthRow
from ...core.evaluation.stats_tests import TestResult

VALUE_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
Index = QModelIndex | QPersistentModelIndex

SUMMARY_HEADERS = {
    "agreement": ("agree", "series where the method's steady/unsteady label matches the truth"),
    "false_positive": ("FP", "method says steady, truth says never steady"),
    "false_negative": ("FN", "truth says steady, method says never steady"),
    "true_positive": ("TP", "both say steady"),
    "true_negative": ("TN", "both say never steady"),
    "n_common": ("scored", "series whose onset errors are scored"),
    "total_abs_error": ("Σ|e|", "total absolute onset error (Manhattan distance), samples"),
    "clustered_abs_error": ("Σ|e| clust.", "total |error| over clustered-truth series"),
    "scattered_abs_error": ("Σ|e| scat.", "total |error| over scattered-truth series"),
    "mean_raw_error": ("mean e", "mean of e = truth - predicted (> 0: detected too early)"),
    "std_raw_error": ("sd e", "standard deviation of e (population)"),
    "mean_abs_error": ("mean |e|", "mean absolute error"),
    "std_abs_error": ("sd |e|", "standard deviation of |e| (population)"),
}
MISS = QColor("#f6d5cf")  # false negative / false positive cells
UNSCORED = QColor("#9a9a9a")  # errors outside the scored series (joint scoring)
ALIGN_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def fmt(v: Any, digits: int = 1) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        if not math.isfinite(v):
            return "–"
        return f"{v:.{digits}f}"
    return str(v)


def fmt_p(v: float | None) -> str:
    if v is None or not math.isfinite(v):
        return "–"
    return f"{v:.2e}" if v < 1e-3 else f"{v:.4f}"


def _sort_key(v: Any) -> float:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return -math.inf
    return float(v)


class _Model(QAbstractTableModel):
    headers: list[str]
    tips: list[str]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows())

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or section >= len(self.headers):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tips[section] or None
        return None

    def _rows(self) -> Sequence[Any]:
        raise NotImplementedError

    def column(self, header: str) -> int:
        return self.headers.index(header)


class SummaryModel(_Model):
    """One row per method; columns are the JSON report's method keys."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.headers = ["method"] + [SUMMARY_HEADERS[k][0] for k in METHOD_KEYS]
        self.tips = ["report name of the method"] + [SUMMARY_HEADERS[k][1] for k in METHOD_KEYS]
        self.rows: list[tuple[str, dict[str, Any]]] = []
        self.colors: dict[str, str] = {}

    def _rows(self) -> Sequence[Any]:
        return self.rows

    def set_report(self, report: EvaluationReport | None, colors: Mapping[str, str] | None = None
                   ) -> None:
        self.beginResetModel()
        self.rows = [] if report is None else [(m, report.method_row(m)) for m in report.methods]
        self.colors = dict(colors or {})
        self.endResetModel()

    def value(self, method: str, key: str) -> Any:
        """Raw value of ``key`` (a METHOD_KEYS name) for ``method``."""
        return dict(self.rows)[method][key]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        name, row = self.rows[index.row()]
        col = index.column()
        if col == 0:
            if role in (Qt.ItemDataRole.DisplayRole, VALUE_ROLE, SORT_ROLE):
                return name
            if role == Qt.ItemDataRole.DecorationRole and name in self.colors:
                return QColor(self.colors[name])
            return None
        v = row[METHOD_KEYS[col - 1]]
        if role == Qt.ItemDataRole.DisplayRole:
            return fmt(v)
        if role == VALUE_ROLE:
            return v
        if role == SORT_ROLE:
            return _sort_key(v)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return ALIGN_RIGHT
        return None


class TestsModel(_Model):
    """Pairwise tests of the report, BH-adjusted p-values in their own column."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.headers = ["pair", "errors", "test", "statistic", "p", "p (BH)"]
        self.tips = ["methods A vs B", "raw: e = truth - predicted; abs: |e|", "", "",
                     "unadjusted p-value",
                     "Benjamini-Hochberg adjusted within the family (sign, CvM, KS, AD, Levene)"]
        self.tests: list[TestResult] = []

    def _rows(self) -> Sequence[Any]:
        return self.tests

    def set_report(self, report: EvaluationReport | None) -> None:
        self.beginResetModel()
        self.tests = [] if report is None else list(report.tests)
        self.endResetModel()

    def pairs(self) -> list[tuple[str, str]]:
        return list(dict.fromkeys((t.method_a, t.method_b) for t in self.tests))

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        t = self.tests[index.row()]
        values = [f"{t.method_a} vs {t.method_b}", t.family, t.test.replace("_", " "), t.statistic,
                  t.p_value, t.p_adjusted]
        v = values[index.column()]
        col = index.column()
        if role == Qt.ItemDataRole.ToolTipRole:
            return t.note or None
        if role == Qt.ItemDataRole.DisplayRole:
            if col in (4, 5):
                return fmt_p(v)
            return f"{v:.4g}" if col == 3 and isinstance(v, float) and math.isfinite(v) else fmt(v)
        if role == VALUE_ROLE:
            return v
        if role == SORT_ROLE:
            return _sort_key(v) if col in (3, 4, 5) else str(v)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (3, 4, 5):
            return ALIGN_RIGHT
        if role == Qt.ItemDataRole.FontRole and col == 5 and t.p_adjusted is not None \
                and t.p_adjusted < 0.05:
            f = QFont()
            f.setBold(True)
            return f
        return None


class SeriesErrorModel(_Model):
    """One row per evaluated series: truth, each method's onset and error ``e = truth - predicted``.

    An error cell shows the signed error when truth and method both say steady, ``FN``/``FP`` when
    they disagree, and stays empty when both say never steady.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.headers, self.tips = [], []
        self.ids: list[str] = []
        self.truth: dict[str, TruthRow] = {}
        self.methods: list[str] = []
        self.preds: dict[str, Onsets] = {}
        self.scored: dict[str, set[str]] = {}

    def _rows(self) -> Sequence[Any]:
        return self.ids

    def set_data(self, truth: Mapping[str, TruthRow], predictions: Mapping[str, Onsets],
                 methods: Sequence[str], scored: Mapping[str, Sequence[str]] | None = None) -> None:
        """``scored``: per method, the series its error statistics use (others are greyed)."""
        self.beginResetModel()
        self.scored = {m: set(ids) for m, ids in (scored or {}).items()}
        self.truth, self.preds = dict(truth), {m: dict(predictions[m]) for m in methods}
        self.methods, self.ids = list(methods), list(truth)
        self.headers = ["series", "truth", "clustered", "max |e|"]
        self.tips = ["series id (click to open it in the explorer)",
                     "reference onset of the truth, or never steady", "truth onset is clustered",
                     "largest |error| over the methods"]
        for m in self.methods:
            self.headers += [m, f"e {m}"]
            self.tips += [f"onset predicted by {m}", f"truth - {m} (FN/FP: steady labels differ)"]
        self.endResetModel()

    def error(self, sid: str, method: str) -> int | str | None:
        """Signed error, ``"FN"``/``"FP"``, or None (both never steady)."""
        g, p = self.truth[sid].reference, self.preds[method].get(sid)
        if self.truth[sid].steady and p is not None:
            return int(g) - int(p)  # type: ignore[arg-type]  # the reference is an int when the truth row is steady
        if self.truth[sid].steady:
            return "FN"
        return "FP" if p is not None else None

    def max_abs_error(self, sid: str) -> int | None:
        errs = [abs(e) for m in self.methods if isinstance(e := self.error(sid, m), int)]
        return max(errs) if errs else None

    def series_id(self, row: int) -> str:
        return self.ids[row]

    def _value(self, sid: str, col: int) -> Any:
        row = self.truth[sid]
        if col == 0:
            return sid
        if col == 1:
            return row.reference if row.steady else "never"
        if col == 2:
            return "" if row.clustered is None else ("yes" if row.clustered else "no")
        if col == 3:
            return self.max_abs_error(sid)
        m = self.methods[(col - 4) // 2]
        if (col - 4) % 2 == 0:
            p = self.preds[m].get(sid)
            return "never" if p is None else p
        return self.error(sid, m)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        sid, col = self.ids[index.row()], index.column()
        v = self._value(sid, col)
        if role in (Qt.ItemDataRole.DisplayRole, VALUE_ROLE):
            return ("" if v is None else str(v)) if role == Qt.ItemDataRole.DisplayRole else v
        if role == SORT_ROLE:
            if col == 0:
                return sid
            if isinstance(v, int):
                return float(abs(v)) if col >= 4 and (col - 4) % 2 == 1 else float(v)
            return {"FN": 1e12, "FP": 1e12 - 1, "never": 1e11}.get(v, -1.0)  # type: ignore[arg-type]  # v is one of the marker strings here (ints are handled above)
        if role == Qt.ItemDataRole.TextAlignmentRole and col != 0:
            return ALIGN_RIGHT
        if role == Qt.ItemDataRole.BackgroundRole and v in ("FN", "FP"):
            return QBrush(MISS)
        if col >= 4 and (col - 4) % 2 == 1 and isinstance(v, int) and self.scored:
            m = self.methods[(col - 4) // 2]
            if sid not in self.scored.get(m, ()):
                if role == Qt.ItemDataRole.ForegroundRole:
                    return QBrush(UNSCORED)
                if role == Qt.ItemDataRole.ToolTipRole:
                    return "not in the error statistics (another method says never steady)"
        return None
