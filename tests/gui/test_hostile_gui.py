"""Issue 17 through the GUI: extreme values draw, every parameter editor survives its extremes, a
damaged session is a message (items 1, 5 and 10)."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core.model import Series

from . import fakes


@pytest.mark.parametrize("values", [
    np.array([5e-324 * (i % 5) for i in range(3000)]),   # subnormals: crashed the paint (exit 139)
    1e300 * (1.0 + np.arange(3000) % 7),                 # near the top of the float range
    np.full(3000, 2.5),                                  # constant
    np.r_[np.zeros(1500), np.full(1500, 1e-310)],        # a step between zero and a subnormal
], ids=["subnormal", "huge", "constant", "tiny-step"])
def test_extreme_series_are_drawn(qtbot, make_window, values):
    win = make_window(fakes.FAKE_CP)
    win.set_dataset([Series(values, id="x")])
    qtbot.waitUntil(lambda: win.series_plot.curve.yData is not None, timeout=10000)
    win.plot_widget.viewport().repaint()  # the paint that crashed
    shown = win.series_plot.curve.yData
    assert shown is not None and np.all(np.isfinite(shown))
    top = float(np.max(np.abs(shown)))
    assert top == 0.0 or 1e-100 < top < 1e100  # drawn in units the view transform can hold


def _numeric_editors():
    import segview
    for spec in segview.methods():
        for p in spec.params:
            if p.kind in ("int", "float"):
                yield spec, p


@pytest.mark.parametrize("spec,param", list(_numeric_editors()),
                         ids=[f"{s.name}.{p.name}" for s, p in _numeric_editors()])
def test_every_parameter_editor_survives_its_extremes(qtbot, spec, param):
    from segview.gui.param_panel import ParamEditor

    editor = ParamEditor(param)
    qtbot.addWidget(editor)
    if editor.auto is not None:
        editor.auto.setChecked(False)
    if editor.alias is not None:
        editor.alias.setCurrentIndex(0)
    targets = []
    if editor.slider is not None:
        for tick in (editor.slider.minimum(), editor.slider.maximum()):
            editor.slider.setValue(tick)  # the CP-SSD seed slider at its maximum raised here
            targets.append(editor.value())
    for v in (editor.spin.minimum(), editor.spin.maximum()):
        editor.spin.setValue(v)
        targets.append(editor.value())
    for v in targets:
        spec.coerce({param.name: v})  # what the panel sends is always a valid parameter


def test_zombie_session_is_a_message_in_the_annotator(qtbot, tmp_path, monkeypatch):
    from segview.core.annotation.store import Store
    from segview.gui.annotate.window import AnnotationWindow

    db = tmp_path / "z.sqlite"
    with Store(db) as store:
        store.insert_session("zombie", "steady_state", {}, "0.0")  # an old interrupted create
    win = AnnotationWindow([])
    qtbot.addWidget(win)
    shown = []
    monkeypatch.setattr(win, "show_error", shown.append)
    assert not win.open_session(str(db), "zombie", "alice")
    assert shown and "session delete zombie" in shown[0]


def test_session_dialog_never_shows_the_password(qtbot):
    from segview.gui.annotate.session_dialog import SessionDialog

    url = "postgresql://judge:Secret99@127.0.0.1:1/segview"
    dlg = SessionDialog(url, [])
    qtbot.addWidget(dlg)
    shown = dlg.db_edit.text() + dlg.db_status.text() + dlg.error.text()
    assert "Secret99" not in shown and "judge:***@" in dlg.db_edit.text()
    assert dlg.db_url() == url  # the masked field still means the real database
    dlg.db_edit.setText("other.sqlite")
    assert dlg.db_url() == "other.sqlite"
