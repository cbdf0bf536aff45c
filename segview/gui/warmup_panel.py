"""The benchmark summary panel (issue 27 point 4): Barrett et al.'s warm-up analysis of the
selected benchmark, as :func:`segview.core.warmup.analyse_benchmark` gives it.

It shows the benchmark's class (consistent / good inconsistent / bad inconsistent, and the
common class when consistent), the count of executions per class, the steady iteration and the
time to steady state (median and inter-quartile range across executions), the steady-state
performance (median and IQR of the executions' steady means, and the mean with Kalibera & Jones'
two-level bootstrap interval), and one row per execution with its class. A combo box chooses the
rule (``barrett``, ``kbkssd``, ``cpssd``: the same classes derived from each method's result), and
a spin box with a unit chooses the classification's ``delta`` (warmup_stats' 1 ms by default; a
time in s, ms, µs or ns, or a percentage of the fastest segment mean), which the window remembers
in its settings.

The panel computes nothing and stores nothing: the explorer's model
(:class:`~segview.core.explorer_model.ExplorerModel`) owns the analyses of the dataset shown and
the key the panel is about; the window asks the job runner (:meth:`JobRunner.request_warmup`, a
worker process) and hands the result to :meth:`WarmupPanel.set_result`; a result for another
benchmark or rule than the one asked for last is ignored here as well.
"""
from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDoubleSpinBox, QFormLayout,
                               QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from ..core.warmup import (BAD_INCONSISTENT, CLASSES, CONSISTENT, GOOD_INCONSISTENT,
                           BenchmarkWarmup, Spread, seconds_per_unit)
from .plots.classes import CLASS_COLORS, CLASS_LABELS, class_html

#: the rules offered, in the combo box's order: (method, label)
RULES = (("barrett", "Barrett et al. (warmup_stats)"), ("kbkssd", "KB-KSSD"),
         ("cpssd", "CP-SSD"))
VERDICT_COLORS = {CONSISTENT: "#222222", GOOD_INCONSISTENT: "#7a6a00",
                  BAD_INCONSISTENT: "#B22222"}
FIELDS = ("class", "counts", "steady_iteration", "time_to_steady", "steady_performance", "ci")
#: delta's units in the unit box's order: (name, seconds per unit; None: percent of the fastest
#: segment mean, ``delta_mode="percent"``)
DELTA_UNITS: tuple[tuple[str, float | None], ...] = (
    ("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9), ("%", None))
#: warmup_stats' delta (``mark_changepoints_in_json --delta``, 0.001 s) as the panel shows it
DEFAULT_DELTA = (1.0, "ms")
__all__ = ["CLASS_COLORS", "CLASS_LABELS", "DEFAULT_DELTA", "DELTA_UNITS", "FIELDS", "RULES",
           "WarmupPanel", "class_html", "delta_params", "display_unit", "number", "spread_text"]


def delta_params(value: float, unit: str) -> dict[str, float | str]:
    """:func:`~segview.core.warmup.analyse_benchmark`'s ``delta`` and ``delta_mode`` for ``value``
    in ``unit`` (one of :data:`DELTA_UNITS`): seconds, or a percentage.

    Raises:
        ValueError: an unknown unit, a negative or non-finite value.
    """
    units = dict(DELTA_UNITS)
    if unit not in units:
        raise ValueError(f"unknown delta unit {unit!r} (one of {', '.join(units)})")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"delta must be a finite number >= 0, got {value!r}")
    per = units[unit]
    if per is None:
        return {"delta": float(value), "delta_mode": "percent"}
    return {"delta": float(value) * per, "delta_mode": "absolute"}

_PREFIXES = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def display_unit(reference: float | None, unit: str) -> tuple[float, str]:
    """``(factor, unit)`` that shows times near ``reference`` (in ``unit``) with a readable
    prefix: 7.4e-05 s as 74 µs. Units that are not times stay as they are."""
    sec = seconds_per_unit(unit)
    if sec is None or reference is None or not math.isfinite(reference) or reference == 0:
        return 1.0, unit
    _, _, per = unit.partition("/")
    seconds = abs(reference) * sec
    for size, name in _PREFIXES:
        if seconds >= size * 0.9995:  # 0.99999 s is "1 s", not "1000 ms"
            break
    return sec / size, name + (f"/{per}" if per else "")


def number(v: float | None, unit: str = "") -> str:
    """Four significant digits (and the unit, with a readable prefix for times), "–" for none."""
    if v is None or not math.isfinite(v):
        return "–"
    factor, shown = display_unit(v, unit)
    return f"{v * factor:.4g}{' ' + shown if shown else ''}"


def spread_text(s: Spread | None, unit: str = "", integer: bool = False) -> str:
    """``median (IQR lo – hi)`` (the unit's prefix chosen by the median); iterations as whole
    numbers when they are."""
    if s is None or not s.values:
        return "–"
    factor, shown = display_unit(s.median, unit)

    def f(v: float) -> str:
        return f"{v:.1f}".rstrip("0").rstrip(".") if integer else f"{v * factor:.4g}"

    lo, hi = s.percentile(25), s.percentile(75)
    return f"{f(s.median)} (IQR {f(lo)} – {f(hi)}){' ' + shown if shown else ''}"


class WarmupPanel(QWidget):
    """Summary of one benchmark's warm-up analysis; see the module docstring.

    Signals: ``rule_changed(method)``, ``delta_changed(value, unit)`` (the user's edit, once it
    is finished), ``open_benchmark(name)`` (the button), ``open_execution(series_id)`` (double
    click on an execution's row), ``result_shown(name)``.
    """

    rule_changed = Signal(str)
    delta_changed = Signal(float, str)
    open_benchmark = Signal(str)
    open_execution = Signal(str)
    result_shown = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._quiet = False
        self.result: BenchmarkWarmup | None = None
        self.benchmark_name: str | None = None
        self.executions = 0
        self.rule = QComboBox(self)
        for name, label in RULES:
            self.rule.addItem(label, name)
        self.rule.setToolTip("Which method's segments decide each execution's class: warmup_stats' "
                             "own pipeline (barrett), or KB-KSSD's or CP-SSD's result classified "
                             "by the same rules")
        self.rule.currentIndexChanged.connect(lambda _i: self.rule_changed.emit(self.method()))
        self.delta = QDoubleSpinBox(self)
        self.delta.setDecimals(4)
        self.delta.setRange(0.0, 1e6)
        self.delta.setKeyboardTracking(False)       # one change per finished edit, not per key
        self.delta_unit = QComboBox(self)
        for name, _per in DELTA_UNITS:
            self.delta_unit.addItem(name, name)
        tip = ("delta: a segment is equivalent to the last one when its mean lies within the last "
               "segment's variance plus delta (warmup_stats: 1 ms, coarse for millisecond "
               "iterations). A time, or % of the fastest segment mean. For higher-is-better "
               "benchmarks a time is read in the values' unit.")
        self.delta.setToolTip(tip)
        self.delta_unit.setToolTip(tip)
        self._set_delta_widgets(*DEFAULT_DELTA)
        self.delta.valueChanged.connect(lambda _v: self._on_delta_edited())
        self.delta_unit.currentIndexChanged.connect(lambda _i: self._on_delta_edited())
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.fields: dict[str, QLabel] = {}
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        tips = {"class": "consistent (every execution the same class), good inconsistent (flat "
                         "and warm-up only) or bad inconsistent",
                "steady_iteration": "first iteration of the steady state (0-based in the measured "
                                    "iterations): median and inter-quartile range over the "
                                    "executions",
                "time_to_steady": "seconds spent in the iterations before the steady state",
                "steady_performance": "the executions' steady means: median and IQR",
                "ci": "mean of the executions' steady means with Kalibera & Jones' two-level "
                      "bootstrap interval (executions, then iterations; seeded)"}
        for key, label in zip(FIELDS, ("Class", "Executions", "Steady iteration",
                                       "Time to steady", "Steady perf.", "Mean ± CI")):
            w = QLabel("–", self)
            w.setTextFormat(Qt.TextFormat.RichText)
            w.setWordWrap(True)
            w.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if key in tips:
                w.setToolTip(tips[key])
            self.fields[key] = w
            form.addRow(label, w)
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["exec", "class", "steady it.", "steady mean"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setToolTip("Double click: show that execution alone")
        self.table.cellDoubleClicked.connect(self._on_cell_double_clicked)
        self.open_button = QPushButton("Open benchmark view", self)
        self.open_button.setToolTip("Every execution of the benchmark, its lanes coloured by class")
        self.open_button.clicked.connect(self._on_open_clicked)
        self.warnings = QLabel(self)
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #8a5a00")
        head = QHBoxLayout()
        head.addWidget(QLabel("Rule", self))
        head.addWidget(self.rule, 1)
        drow = QHBoxLayout()
        drow.addWidget(QLabel("Delta", self))
        drow.addWidget(self.delta, 1)
        drow.addWidget(self.delta_unit)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(head)
        lay.addLayout(drow)
        lay.addWidget(self.title)
        lay.addWidget(self.status)
        lay.addLayout(form)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.warnings)
        lay.addWidget(self.open_button)
        self.clear()

    # ------------------------------------------------------------------ state
    def method(self) -> str:
        return str(self.rule.currentData())

    def set_method(self, name: str) -> None:
        k = self.rule.findData(name)
        if k >= 0:
            self.rule.setCurrentIndex(k)

    def delta_setting(self) -> tuple[float, str]:
        """The delta chosen: ``(value, unit)``, unit one of :data:`DELTA_UNITS`."""
        return float(self.delta.value()), str(self.delta_unit.currentData())

    def delta_params(self) -> dict[str, float | str]:
        """``delta`` and ``delta_mode`` for :func:`~segview.core.warmup.analyse_benchmark`."""
        return delta_params(*self.delta_setting())

    def set_delta(self, value: float, unit: str) -> None:
        """Show ``value`` in ``unit`` (no :attr:`delta_changed`: a setting restored, not an edit);
        an unknown unit or a bad value gives warmup_stats' 1 ms."""
        try:
            delta_params(value, unit)
        except (ValueError, TypeError):
            value, unit = DEFAULT_DELTA
        self._set_delta_widgets(value, unit)

    def _set_delta_widgets(self, value: float, unit: str) -> None:
        self._quiet = True
        try:
            self.delta_unit.setCurrentIndex(max(0, self.delta_unit.findData(unit)))
            self.delta.setValue(value)
        finally:
            self._quiet = False

    def _on_delta_edited(self) -> None:
        if not self._quiet:
            self.delta_changed.emit(*self.delta_setting())

    def clear(self) -> None:
        self.result = None
        self.benchmark_name = None
        self.title.setText("<i>Select a benchmark</i>")
        self.status.setText("")
        for w in self.fields.values():
            w.setText("–")
        self.table.setRowCount(0)
        self.warnings.setText("")
        self.open_button.setEnabled(False)

    def set_pending(self, name: str, executions: int) -> None:
        """A new benchmark (or rule) was asked for: its analysis is under way."""
        self.clear()
        self.benchmark_name = name
        self.executions = executions
        self.title.setText(f"<b>{name}</b>")
        self.status.setText(f"Analysing {executions} execution{'s' if executions != 1 else ''} "
                            f"with {self.rule.currentText()}…")
        self.open_button.setEnabled(executions > 1)

    def set_failed(self, name: str, text: str) -> None:
        if name != self.benchmark_name:
            return
        first = text.strip().splitlines()[-1] if text.strip() else "failed"
        self.status.setText(f"Analysis failed: {first}")
        self.status.setToolTip(text)

    def set_result(self, result: BenchmarkWarmup) -> bool:
        """Show ``result``; False (ignored) when it is for another benchmark or rule."""
        if result.name != self.benchmark_name or result.method != self.method():
            return False
        self.result = result
        unit = result.unit or ""
        value, dunit = self.delta_setting()
        self.status.setText(f"{len(result.analysed)} of {len(result.executions)} executions "
                            f"analysed · {unit or 'no unit'} · {result.direction} is better · "
                            f"delta {value:g} {dunit}")
        if result.consistency == CONSISTENT:
            verdict = f"{class_html(result.classification)} <b>(consistent)</b>"
        elif result.consistency is None:
            verdict = class_html(None)
        else:
            color = VERDICT_COLORS[result.consistency]
            verdict = f"<b style='color:{color}'>{result.consistency}</b>"
        self.fields["class"].setText(verdict)
        cells = [f"<td style='white-space:nowrap; padding-right:8px'>{class_html(c)} "
                 f"{result.counts.get(c, 0)}</td>" for c in CLASSES]
        self.fields["counts"].setText(f"<table cellspacing=0 cellpadding=0><tr>{''.join(cells[:2])}"
                                      f"</tr><tr>{''.join(cells[2:])}</tr></table>")
        reason = result.steady_reason
        none = f"<i>– ({reason})</i>" if reason else "–"
        self.fields["steady_iteration"].setText(
            spread_text(result.steady_iteration, integer=True) if result.steady_iteration
            else none)
        # a unit that is not a time was taken as seconds by the analysis (warmup_stats' rule):
        # say so beside the figure, not only in the Messages panel
        assumed = "" if seconds_per_unit(result.unit) else " <i>(values taken as s)</i>"
        self.fields["time_to_steady"].setText(spread_text(result.time_to_steady, "s") + assumed
                                              if result.time_to_steady else "–")
        self.fields["steady_performance"].setText(spread_text(result.steady_means, unit)
                                                  if result.steady_means else none)
        ci = result.steady_ci
        if ci is None:
            self.fields["ci"].setText("–")
        else:
            factor, shown = display_unit(ci.estimate, unit)
            self.fields["ci"].setText(
                f"{ci.estimate * factor:.4g} [{ci.low * factor:.4g}, {ci.high * factor:.4g}]"
                f"{' ' + shown if shown else ''} ({100 * ci.confidence:g} %)")
        self._fill_table(result)
        self.warnings.setText("\n".join(result.warnings))
        self.open_button.setEnabled(len(result.executions) > 1)
        self.result_shown.emit(result.name)
        return True

    def _fill_table(self, result: BenchmarkWarmup) -> None:
        t = self.table
        t.setRowCount(len(result.executions))
        for r, e in enumerate(result.executions):
            cls = e.classification
            cells = (str(e.index), CLASS_LABELS.get(cls, cls) if cls else f"– {e.error or ''}",
                     "–" if e.steady_iteration is None else str(e.steady_iteration),
                     number(e.steady_mean, result.unit or ""))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, e.series_id)
                if c == 1 and cls in CLASS_COLORS:
                    item.setForeground(QBrush(QColor(CLASS_COLORS[cls])))
                if c == 1 and e.notes:
                    item.setToolTip("\n".join(e.notes))
                t.setItem(r, c, item)

    # ------------------------------------------------------------------ actions
    def _on_open_clicked(self) -> None:
        if self.benchmark_name is not None:
            self.open_benchmark.emit(self.benchmark_name)

    def _on_cell_double_clicked(self, row: int, _col: int) -> None:
        item = self.table.item(row, 0)
        if item is not None:
            self.open_execution.emit(str(item.data(Qt.ItemDataRole.UserRole)))
