"""Parameter editors built from each detector's ParamSpecs.

int/float -> slider (integer ticks, ``low + tick*step`` or logarithmic) plus spin box; bool ->
check box; choices -> combo box; optional numbers get an "auto" box, aliases a combo. Range is set
before value, and slider/spin box are kept in sync under ``QSignalBlocker``. The panel emits
``params_changed(method, Params)`` on every edit; the job runner debounces.

Safe controls: a slider, spin box or combo box takes wheel events only when it has keyboard focus
(else the wheel scrolls the panel), and a focused one keeps PgUp/PgDn/Home/End/arrows for itself
(they do not switch series). Parameters whose range spans three decades or more get a logarithmic
slider (with ``low == 0`` its first tick is exactly 0); every number can be typed in its spin box.
A method with presets (``DetectorSpec.presets``) gets a preset menu; the "changed" marks are
relative to the chosen preset.
"""
from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QValidator, QWheelEvent
from PySide6.QtWidgets import (QAbstractScrollArea, QApplication, QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea, QSlider,
                               QSpinBox, QVBoxLayout, QWidget)

from ..core.errors import ParameterError
from ..core.params import ParamSpec, Params
from ..core.registry import DetectorSpec
from .fine_slider import FineSlider

INT_LIMIT = 2**31 - 1
MAX_TICKS = 10_000
LOG_TICKS = 1000
CUSTOM = "value"
SLOW_MARK = " \u25d4"  # a quarter-filled circle: "takes time"
DEFAULTS = "defaults"
LOG_DECADES = 3.0  # a range spanning this many decades gets a log slider
FOCUS_KEYS = {Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Home, Qt.Key.Key_End,
              Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Left, Qt.Key.Key_Right}


class WheelGuard(QObject):
    """Event filter: wheel only for the focused control; its navigation keys are its own."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        t = event.type()
        if t == QEvent.Type.Wheel and isinstance(obj, QWidget) and not obj.hasFocus():
            area = obj.parentWidget()
            while area is not None and not isinstance(area, QAbstractScrollArea):
                area = area.parentWidget()
            if area is not None:  # the panel scrolls instead of the control changing
                QApplication.sendEvent(area.viewport(), QWheelEvent(
                    area.viewport().mapFromGlobal(event.globalPosition()), event.globalPosition(),
                    event.pixelDelta(), event.angleDelta(), event.buttons(), event.modifiers(),
                    event.phase(), event.inverted()))
            event.accept()
            return True
        if t == QEvent.Type.ShortcutOverride and isinstance(obj, QWidget) and obj.hasFocus() \
                and event.key() in FOCUS_KEYS:
            event.accept()  # the control handles the key; window shortcuts (next series) do not
            return True
        return False


WHEEL_GUARD = WheelGuard()


def guard(widget: QWidget) -> QWidget:
    """Give ``widget`` click/tab focus (not wheel focus) and the wheel/shortcut guard."""
    widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    widget.installEventFilter(WHEEL_GUARD)
    return widget


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


def _log_interp(lo: float, hi: float, frac: float) -> float:
    """``lo * (hi / lo) ** frac`` in log space (the ratio overflows for ranges like 1e-300..1e300)."""
    return math.exp(math.log(lo) + frac * (math.log(hi) - math.log(lo)))


def _log_frac(lo: float, hi: float, value: float) -> float:
    """Where ``value`` sits between ``lo`` and ``hi`` on a log scale (0..1)."""
    return (math.log(value) - math.log(lo)) / (math.log(hi) - math.log(lo))


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
            self.combo = guard(QComboBox(self))
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
            self.alias = guard(QComboBox(self))
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
        spin.setMinimumWidth(76)
        guard(spin)
        spin.valueChanged.connect(self._on_spin_changed)
        self.spin = spin
        if s.low is not None and s.high is not None and s.high > s.low:
            # its own row, the panel's width (MethodParamsBox), with a fine mode (Shift)
            self.slider = guard(FineSlider(Qt.Orientation.Horizontal, self))
            self.slider.setMinimumWidth(64)
            self.slider.setRange(0, self._ticks())
            self.slider.setSingleStep(max(1, self._ticks() // 100))
            self.slider.setPageStep(max(1, self._ticks() // 20))
            self.slider.setToolTip(f"{s.describe()}\nShift-drag or Shift+arrow: a tenth of the "
                                   "speed, for exact values")
            self.slider.valueChanged.connect(self._on_slider_changed)
        row.addWidget(spin, 1)
        if s.optional:
            self.auto = QCheckBox("auto", self)
            self.auto.toggled.connect(self._on_auto_toggled)
            row.addWidget(self.auto)

    def _log_ok(self) -> bool:
        s = self.spec
        if s.low is None or s.high is None or s.low < 0 or self._log_lo() <= 0:
            return False
        if s.log:
            return True
        return math.log10(float(s.high) / self._log_lo()) >= LOG_DECADES

    def _log_lo(self) -> float:
        """Lower end of a log slider: ``low``; for ``low == 0`` the step, or the default, or
        ``high * 1e-6`` (tick 0 is then exactly 0, tick 1 this value)."""
        s = self.spec
        if s.low is not None and s.low > 0:
            return float(s.low)
        if s.step and 0 < s.step < (s.high or 0):
            return float(s.step)
        d = s.default
        if isinstance(d, (int, float)) and not isinstance(d, bool) and 0 < d < (s.high or 0):
            return float(d)
        return float(s.high or 1) * 1e-6

    def _zero_tick(self) -> bool:
        """A log slider over ``0..high``: tick 0 stands for 0."""
        return bool(self.spec.low is not None and self.spec.low == 0)

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
            if self._zero_tick():
                if tick <= 0:
                    return 0 if s.kind == "int" else 0.0
                v = _log_interp(llo, hi, (tick - 1) / (LOG_TICKS - 1))
            else:
                v = _log_interp(llo, hi, tick / LOG_TICKS)
            v = float(f"{v:.3g}")  # round numbers on a log slider (0.1, 0.25, 4.7, 1e+03)
        else:
            v = lo + tick * (hi - lo) / self._ticks()
            if s.step:
                v = lo + round((v - lo) / s.step) * s.step
        v = min(max(v, lo), hi)
        if s.kind == "int":  # a QSpinBox holds 32-bit ints (the CP-SSD seed goes to 2**32 - 1)
            return int(min(max(round(v), -INT_LIMIT), INT_LIMIT))
        return float(round(v, 10))

    def value_to_tick(self, value: float) -> int:
        s = self.spec
        lo, hi = float(s.low), float(s.high)
        value = min(max(float(value), lo), hi)
        if self._log_ok():
            llo = self._log_lo()
            if self._zero_tick():
                if value <= 0:
                    return 0
                if value <= llo:
                    return 1
                return 1 + int(round((LOG_TICKS - 1) * _log_frac(llo, hi, value)))
            if value <= llo:
                return 0
            return int(round(LOG_TICKS * _log_frac(llo, hi, value)))
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
            if self.spec.kind == "int":
                value = min(max(int(value), self.spin.minimum()), self.spin.maximum())
            self.spin.setValue(value)
            if self.slider is not None:
                self.slider.setValue(self.value_to_tick(value))
        self._sync_enabled()


class MethodParamsBox(QGroupBox):
    """The editors of one detector, with a reset button and a faithful-defaults marker."""

    changed = Signal(str)
    preset_chosen = Signal(str, str)  # method, preset name (DEFAULTS for the plain defaults)

    def __init__(self, spec: DetectorSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec.label, parent)
        self.spec = spec
        self.preset = DEFAULTS
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)  # narrow panel: label above
        self.editors: dict[str, ParamEditor] = {}
        self.labels: dict[str, QLabel] = {}
        self.preset_combo: QComboBox | None = None
        if spec.presets:
            combo = guard(QComboBox(self))
            combo.addItem(DEFAULTS)
            combo.setItemData(0, "the parameters' own defaults", Qt.ItemDataRole.ToolTipRole)
            for i, pr in enumerate(spec.presets, start=1):
                combo.addItem(pr.name)
                tip = (pr.help + "\n" if pr.help else "") + ", ".join(
                    f"{k}={v!r}" for k, v in pr.values.items())
                combo.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
            combo.setToolTip("Named parameter sets of this method; choosing one sets its values "
                             "(Ctrl+Z undoes). Marks show what differs from the chosen preset.")
            combo.activated.connect(self._on_preset_activated)
            lab = QLabel("Preset", self)
            lab.setToolTip(combo.toolTip())
            form.addRow(lab, combo)
            self.preset_combo = combo
        for p in spec.params:
            ed = ParamEditor(p, self)
            ed.changed.connect(self._on_editor_changed)
            lab = QLabel(p.display, self)
            tip = p.describe() + (" Changing it re-runs the slow stage." if p.stage == "prepare" else "")
            lab.setToolTip(f"{tip}\nFaithful default: {p.default!r}")
            form.addRow(lab, ed)
            if ed.slider is not None:  # the whole width: a 0..1 threshold settable to 0.01
                form.addRow(ed.slider)
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
        """Back to the chosen preset's values (the defaults when none is chosen)."""
        self.set_params(self.base(), emit=True)

    def base(self) -> Params:
        """The values of the chosen preset (the defaults without one)."""
        if self.preset == DEFAULTS:
            return self.spec.defaults()
        return self.spec.coerce({}, preset=self.preset)

    def set_preset(self, name: str, apply: bool = False) -> None:
        """Choose the preset the marks compare with; with ``apply`` also set its values."""
        known = {p.name for p in self.spec.presets}
        self.preset = name if name in known else DEFAULTS
        if self.preset_combo is not None:
            with QSignalBlocker(self.preset_combo):
                self.preset_combo.setCurrentText(self.preset)
        if apply:
            self.set_params(self.base(), emit=True)
        else:
            self._mark()

    def _on_preset_activated(self, index: int) -> None:
        name = self.preset_combo.itemText(index)
        self.set_preset(name, apply=False)
        self.preset_chosen.emit(self.spec.name, self.preset)
        self.set_params(self.base(), emit=True)

    def is_default(self) -> bool:
        return self.params() == self.spec.defaults()

    def changed_names(self) -> list[str]:
        """Parameters whose shown value differs from the chosen preset."""
        try:
            base = self.base()
        except ParameterError:
            base = self.spec.defaults()
        return [p.name for p in self.spec.params if self.editors[p.name].value() != base.get(p.name)]

    def _mark(self) -> None:
        differing = set(self.changed_names())
        for p in self.spec.params:
            differs = p.name in differing
            lab = self.labels[p.name]
            f = lab.font()
            f.setItalic(differs)
            f.setBold(differs)
            lab.setFont(f)
            lab.setText(("\u2022 " if differs else "") + p.display
                        + (SLOW_MARK if p.stage == "prepare" else ""))
        base = "defaults" if self.preset == DEFAULTS else f"preset {self.preset}"
        if differing:
            text = f"{len(differing)} changed from {base}: " + ", ".join(sorted(differing))
        else:
            text = base
        self.status.setText(text)
        self.status.setToolTip(text)
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #2a7a2a;" if not differing else
                                  "color: #b35900; font-weight: 600;")
        self.reset_button.setText("Reset to defaults" if self.preset == DEFAULTS
                                  else f"Reset to {self.preset}")

    def _on_editor_changed(self) -> None:
        self._mark()
        self.changed.emit(self.spec.name)


class ParamPanel(QScrollArea):
    """One box per detector; emits ``params_changed(method, Params)``."""

    params_changed = Signal(str, object)
    params_invalid = Signal(str, str)
    preset_chosen = Signal(str, str)

    def __init__(self, specs: list[DetectorSpec], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget(self)
        self._layout = QVBoxLayout(inner)
        self.boxes: dict[str, MethodParamsBox] = {}
        hint = QLabel(f"{SLOW_MARK.strip()} = slow stage (re-computed when changed); "
                      "\u2022 = differs from the defaults (or the chosen preset). Defaults are the "
                      "papers' settings except where those need unit-free data; the Preset menu's "
                      "'faithful' is always the paper's configuration", inner)
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #666;")
        self._layout.addWidget(hint)
        for spec in specs:
            box = MethodParamsBox(spec, inner)
            box.changed.connect(self._on_box_changed)
            box.preset_chosen.connect(self.preset_chosen)
            self._layout.addWidget(box)
            self.boxes[spec.name] = box
        self._layout.addStretch(1)
        self.setWidget(inner)
        self._fit_width()

    def _fit_width(self) -> None:
        """Never narrower than the shown editors (there is no horizontal scroll bar: a cut-off
        spin box would hide its value); the plot gives up the room instead."""
        inner = self.widget()
        inner.layout().activate()
        self.setMinimumWidth(inner.minimumSizeHint().width()
                             + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth())

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
        self._fit_width()

    def reset_all(self) -> None:
        """Every method back to its faithful defaults (and no preset)."""
        for box in self.boxes.values():
            box.set_preset(DEFAULTS)
            if not box.is_default():
                box.reset()

    def _on_box_changed(self, method: str) -> None:
        try:
            params = self.boxes[method].params()
        except ParameterError as err:
            self.params_invalid.emit(method, str(err))
            return
        self.params_changed.emit(method, params)
