"""Parameter editors built from each detector's ParamSpecs.

int/float -> slider (integer ticks, ``low + tick*step`` or logarithmic) plus spin box; bool ->
check box; choices -> combo box; optional numbers get an "auto" box, aliases a combo. Range is set
before value, and slider/spin box are kept in sync under ``QSignalBlocker``. The panel emits
``params_changed(method, Params)`` on every edit; the job runner debounces.
"""
from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea, QSlider,
                               QSpinBox, QVBoxLayout, QWidget)

from ..core.errors import ParameterError
from ..core.params import ParamSpec, Params
from ..core.registry import DetectorSpec

INT_LIMIT = 2**31 - 1
MAX_TICKS = 10_000
LOG_TICKS = 1000
CUSTOM = "value"
SLOW_MARK = " \u25d4"  # a quarter-filled circle: "takes time"


class SciSpinBox(QDoubleSpinBox):
    """A float spin box that keeps full precision and shows/accepts ``1e-16``-style numbers."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDecimals(323)  # no rounding of the stored value

    def textFromValue(self, value: float) -> str:  # noqa: N802 (Qt override)
        return f"{value:.6g}"

    def valueFromText(self, text: str) -> float:  # noqa: N802
        try:
            return float(text)
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int) -> object:
        try:
            float(text)
        except ValueError:
            return (QValidator.State.Intermediate, text, pos)
        return (QValidator.State.Acceptable, text, pos)


class ParamEditor(QWidget):
    """Editor for one parameter; ``changed`` fires on user edits (and on ``set_value(emit=True)``)."""

    changed = Signal()

    def __init__(self, spec: ParamSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.slider: QSlider | None = None
        self.spin: QSpinBox | QDoubleSpinBox | None = None
        self.check: QCheckBox | None = None
        self.combo: QComboBox | None = None
        self.line: QLineEdit | None = None
        self.auto: QCheckBox | None = None
        self.alias: QComboBox | None = None
        k = spec.kind
        if k == "bool":
            self.check = QCheckBox(self)
            self.check.toggled.connect(self._on_widget_changed)
            row.addWidget(self.check)
            row.addStretch(1)
        elif k == "str" and spec.choices:
            self.combo = QComboBox(self)
            self.combo.addItems(list(spec.choices))
            self.combo.currentIndexChanged.connect(self._on_widget_changed)
            row.addWidget(self.combo, 1)
        elif k == "str":
            self.line = QLineEdit(self)
            self.line.editingFinished.connect(self._on_widget_changed)
            row.addWidget(self.line, 1)
        else:
            self._build_number(row)
        self.setToolTip(spec.describe())
        self.set_value(spec.default, emit=False)

    # ---------------------------------------------------------------- numbers
    def _build_number(self, row: QHBoxLayout) -> None:
        s = self.spec
        if s.aliases:
            self.alias = QComboBox(self)
            self.alias.addItems([CUSTOM, *s.aliases])
            self.alias.currentIndexChanged.connect(self._on_alias_changed)
            row.addWidget(self.alias)
        lo = s.low if s.low is not None else -1e12
        hi = s.high if s.high is not None else 1e12
        if s.kind == "int":
            spin: QSpinBox | QDoubleSpinBox = QSpinBox(self)
            spin.setRange(int(max(lo, -INT_LIMIT)), int(min(hi, INT_LIMIT)))  # range before value
            spin.setSingleStep(int(s.step or 1))
        else:
            spin = SciSpinBox(self)
            spin.setRange(lo, hi)
            spin.setSingleStep(float(s.step or (hi - lo) / 100 if s.low is not None
                                     and s.high is not None else s.step or 0.1))
        spin.setKeyboardTracking(False)
        spin.setMinimumWidth(84)
        spin.valueChanged.connect(self._on_spin_changed)
        self.spin = spin
        if s.low is not None and s.high is not None and s.high > s.low:
            self.slider = QSlider(Qt.Orientation.Horizontal, self)
            self.slider.setRange(0, self._ticks())
            self.slider.valueChanged.connect(self._on_slider_changed)
            row.addWidget(self.slider, 1)
        row.addWidget(spin)
        if s.optional:
            self.auto = QCheckBox("auto", self)
            self.auto.toggled.connect(self._on_auto_toggled)
            row.addWidget(self.auto)

    def _log_ok(self) -> bool:
        s = self.spec
        return bool(s.log and s.low is not None and s.high is not None and self._log_lo() > 0)

    def _log_lo(self) -> float:
        """Lower end of a log slider: ``low``, or for ``low == 0`` the default (tick 0 means 0)."""
        s = self.spec
        if s.low is not None and s.low > 0:
            return float(s.low)
        d = s.default
        if isinstance(d, (int, float)) and not isinstance(d, bool) and 0 < d < (s.high or 0):
            return float(d)
        return float(s.high or 1) * 1e-6

    def _ticks(self) -> int:
        s = self.spec
        if self._log_ok():
            return LOG_TICKS
        step = s.step or (1 if s.kind == "int" else (s.high - s.low) / 1000)
        return int(min(MAX_TICKS, max(1, round((s.high - s.low) / step))))

    def tick_to_value(self, tick: int) -> float | int:
        s = self.spec
        lo, hi = float(s.low), float(s.high)
        if self._log_ok():
            llo = self._log_lo()
            v = llo * (hi / llo) ** (tick / LOG_TICKS)
        else:
            v = lo + tick * (hi - lo) / self._ticks()
            if s.step:
                v = lo + round((v - lo) / s.step) * s.step
        v = min(max(v, lo), hi)
        return int(round(v)) if s.kind == "int" else float(round(v, 10))

    def value_to_tick(self, value: float) -> int:
        s = self.spec
        lo, hi = float(s.low), float(s.high)
        value = min(max(float(value), lo), hi)
        if self._log_ok():
            llo = self._log_lo()
            if value <= llo:
                return 0
            return int(round(LOG_TICKS * math.log(value / llo) / math.log(hi / llo)))
        return int(round((value - lo) / (hi - lo) * self._ticks()))

    def _on_slider_changed(self, tick: int) -> None:
        v = self.tick_to_value(tick)
        with QSignalBlocker(self.spin):
            self.spin.setValue(v)
        self._on_widget_changed()

    def _on_spin_changed(self, v: float) -> None:
        if self.slider is not None:
            with QSignalBlocker(self.slider):
                self.slider.setValue(self.value_to_tick(v))
        self._on_widget_changed()

    def _on_auto_toggled(self, on: bool) -> None:
        self._sync_enabled()
        self._on_widget_changed()

    def _on_alias_changed(self, _i: int) -> None:
        self._sync_enabled()
        self._on_widget_changed()

    def _sync_enabled(self) -> None:
        numeric = not ((self.auto and self.auto.isChecked())
                       or (self.alias and self.alias.currentText() != CUSTOM))
        for w in (self.slider, self.spin):
            if w is not None:
                w.setEnabled(numeric)

    def _on_widget_changed(self, *_: Any) -> None:
        self.changed.emit()

    # ---------------------------------------------------------------- value
    def value(self) -> Any:
        if self.check is not None:
            return self.check.isChecked()
        if self.combo is not None:
            return self.combo.currentText()
        if self.line is not None:
            return self.line.text()
        if self.auto is not None and self.auto.isChecked():
            return None
        if self.alias is not None and self.alias.currentText() != CUSTOM:
            return self.alias.currentText()
        v = self.spin.value()
        return int(v) if self.spec.kind == "int" else float(v)

    def set_value(self, value: Any, emit: bool = True) -> None:
        """Show ``value`` (coerced through the spec); emits ``changed`` once when ``emit``."""
        blockers = [QSignalBlocker(w) for w in (self.slider, self.spin, self.check, self.combo,
                                                self.line, self.auto, self.alias) if w is not None]
        try:
            if self.check is not None:
                self.check.setChecked(bool(value))
            elif self.combo is not None:
                self.combo.setCurrentText(str(value))
            elif self.line is not None:
                self.line.setText("" if value is None else str(value))
            else:
                self._set_number(value)
        finally:
            del blockers
        if emit:
            self.changed.emit()

    def _set_number(self, value: Any) -> None:
        if self.auto is not None:
            self.auto.setChecked(value is None)
        if self.alias is not None:
            self.alias.setCurrentText(str(value) if isinstance(value, str) else CUSTOM)
        if value is not None and not isinstance(value, str):
            self.spin.setValue(value)
            if self.slider is not None:
                self.slider.setValue(self.value_to_tick(value))
        self._sync_enabled()


class MethodParamsBox(QGroupBox):
    """The editors of one detector, with a reset button and a faithful-defaults marker."""

    changed = Signal(str)

    def __init__(self, spec: DetectorSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec.label, parent)
        self.spec = spec
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.editors: dict[str, ParamEditor] = {}
        self.labels: dict[str, QLabel] = {}
        for p in spec.params:
            ed = ParamEditor(p, self)
            ed.changed.connect(self._on_editor_changed)
            lab = QLabel(p.display, self)
            tip = p.describe() + (" Changing it re-runs the slow stage." if p.stage == "prepare" else "")
            lab.setToolTip(f"{tip}\nFaithful default: {p.default!r}")
            form.addRow(lab, ed)
            self.editors[p.name], self.labels[p.name] = ed, lab
        bottom = QHBoxLayout()
        self.status = QLabel(self)
        self.reset_button = QPushButton("Reset to defaults", self)
        self.reset_button.clicked.connect(self.reset)
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.reset_button)
        form.addRow(bottom)
        if not spec.params:
            form.insertRow(0, QLabel("no parameters", self))
        self._mark()

    def raw(self) -> dict[str, Any]:
        return {name: ed.value() for name, ed in self.editors.items()}

    def params(self) -> Params:
        return self.spec.coerce(self.raw())

    def set_params(self, params: Params, emit: bool = False) -> None:
        for name, ed in self.editors.items():
            if name in params:
                ed.set_value(params[name], emit=False)
        self._mark()
        if emit:
            self.changed.emit(self.spec.name)

    def reset(self) -> None:
        self.set_params(self.spec.defaults(), emit=True)

    def is_default(self) -> bool:
        return self.params() == self.spec.defaults()

    def _mark(self) -> None:
        modified = 0
        for p in self.spec.params:
            differs = self.editors[p.name].value() != p.default
            modified += differs
            lab = self.labels[p.name]
            f = lab.font()
            f.setItalic(differs)
            lab.setFont(f)
            lab.setText(("\u2022 " if differs else "") + p.display
                        + (SLOW_MARK if p.stage == "prepare" else ""))
        self.status.setText("faithful defaults" if not modified else f"{modified} changed")
        self.status.setStyleSheet("color: #2a7a2a;" if not modified else "color: #b35900;")

    def _on_editor_changed(self) -> None:
        self._mark()
        self.changed.emit(self.spec.name)


class ParamPanel(QScrollArea):
    """One box per detector; emits ``params_changed(method, Params)``."""

    params_changed = Signal(str, object)
    params_invalid = Signal(str, str)

    def __init__(self, specs: list[DetectorSpec], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget(self)
        self._layout = QVBoxLayout(inner)
        self.boxes: dict[str, MethodParamsBox] = {}
        hint = QLabel(f"{SLOW_MARK.strip()} = slow stage (re-computed when changed); "
                      "\u2022 = differs from the faithful default; the shown values at start are the "
                      "faithful (published) defaults", inner)
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #666;")
        self._layout.addWidget(hint)
        for spec in specs:
            box = MethodParamsBox(spec, inner)
            box.changed.connect(self._on_box_changed)
            self._layout.addWidget(box)
            self.boxes[spec.name] = box
        self._layout.addStretch(1)
        self.setWidget(inner)

    def params(self, method: str) -> Params:
        return self.boxes[method].params()

    def set_params(self, method: str, params: Params, emit: bool = False) -> None:
        self.boxes[method].set_params(params, emit=emit)

    def editor(self, method: str, name: str) -> ParamEditor:
        return self.boxes[method].editors[name]

    def set_value(self, method: str, name: str, value: Any) -> None:
        """Set one value as if the user edited it (used by draggable threshold lines)."""
        self.editor(method, name).set_value(value, emit=True)

    def set_method_visible(self, method: str, visible: bool) -> None:
        self.boxes[method].setVisible(visible)

    def reset_all(self) -> None:
        for box in self.boxes.values():
            if not box.is_default():
                box.reset()

    def _on_box_changed(self, method: str) -> None:
        try:
            params = self.boxes[method].params()
        except ParameterError as err:
            self.params_invalid.emit(method, str(err))
            return
        self.params_changed.emit(method, params)
