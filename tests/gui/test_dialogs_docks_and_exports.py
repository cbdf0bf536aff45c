"""Everyday window chrome, each as a person meets it: Quit, the adjudication list, View entries for closed
docks, the shortcuts dialog and About box, the status readout, file dialogs, the session dialog,
the evaluation window's Run now, the series table's parameter marks, exported legends."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from segview import __version__
from segview.core import registry
from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store
from segview.core.model import Series
from segview.core.resources import sample_dir
from segview.gui.settings import Settings

from . import fakes


def test_quit_closes_the_evaluation_and_annotation_windows(qtbot, make_window, sample, monkeypatch):
    from segview.gui.annotate.window import AnnotationWindow

    monkeypatch.setattr(AnnotationWindow, "ask_session", lambda self, *a: True)
    win = make_window(fakes.FAKE_CP)
    assert win.open_paths([str(sample)])
    win.open_evaluation()
    win.open_annotation()
    ev, ann = win.evaluation_window, win.annotation_window
    assert ev.isVisible() and ann.isVisible()
    quits = []
    monkeypatch.setattr(QApplication, "quit", lambda *a: quits.append(1))
    win.quit_all()
    assert not win.isVisible() and not ev.isVisible() and not ann.isVisible()
    assert quits == [1]


def test_closed_docks_come_back_from_the_view_menu(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    view = next(a.menu() for a in win.menuBar().actions() if a.text() == "&View")
    panels = next(a.menu() for a in view.actions() if a.menu() is not None)
    names = [a.text() for a in panels.actions()]
    assert names == ["Series", "Warm-up", "Methods", "Parameters", "Messages"]
    dock = win.docks["Parameters"]
    dock.close()
    assert not dock.isVisible()
    next(a for a in panels.actions() if a.text() == "Parameters").trigger()
    assert dock.isVisible()


def test_shortcuts_dialog_and_about_box(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)  # shortcuts need an active window
    qtbot.keyClick(win, Qt.Key.Key_F1)
    dlg = win.shortcuts_dialog
    assert dlg.isVisible()
    rows = {dlg.table.item(r, 0).text(): dlg.table.item(r, 1).text()
            for r in range(dlg.table.rowCount())}
    assert any("Undo" in d for d in rows.values()) and "Ctrl+J" in rows
    assert any("Wheel" in k for k in rows)
    from segview.gui.help_dialogs import show_about

    box = show_about(win)
    assert __version__ in box.text()
    box.close()
    dlg.close()


def test_status_readout_is_cleared_for_a_new_series(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_CP)
    assert win.open_paths([str(sample)])
    win.hover_label.setText(f"{win.current.id}  index 5  value 1")
    win.next_series()
    qtbot.waitUntil(lambda: win.current.id != win.series[0].id)
    assert win.hover_label.text() == ""


def test_file_dialogs_never_start_inside_the_package(qapp, tmp_path):
    s = Settings()
    s.set_last_folder(str(sample_dir()))
    assert s.last_folder() == str(Path.home())
    s.set_last_folder(str(tmp_path))
    assert s.last_folder() == str(tmp_path)


def test_session_dialog_does_not_preselect_an_unrelated_session(qtbot, tmp_path):
    from segview.gui.annotate.session_dialog import SessionDialog

    db = str(tmp_path / "s.sqlite")
    with Store(db) as store:
        AnnotationSession.create(store, "someone-elses", [Series(np.arange(50.0), id="x")])
    data = tmp_path / "mydata"
    data.mkdir()
    dlg = SessionDialog(db, [str(data)], None, None)
    qtbot.addWidget(dlg)
    assert dlg.session_combo.currentIndex() == -1
    assert dlg.new_radio.isChecked() and dlg.new_name.text() == "mydata"
    assert dlg.choice().create
    dlg.session_combo.setCurrentIndex(0)
    dlg.session_combo.activated.emit(0)
    assert dlg.open_radio.isChecked() and dlg.choice().session == "someone-elses"


def test_cancelled_session_dialog_leaves_no_empty_annotator(qtbot, make_window, sample,
                                                           monkeypatch):
    from segview.gui.annotate.window import AnnotationWindow

    monkeypatch.setattr(AnnotationWindow, "ask_session", lambda self, *a: False)
    win = make_window(fakes.FAKE_CP)
    assert win.open_paths([str(sample)])
    win.open_annotation()
    qtbot.waitUntil(lambda: not win.annotation_window.isVisible())


def test_adjudication_list_keeps_its_order_after_a_decision(qtbot, tmp_path):
    from segview.gui.annotate.window import AnnotationWindow

    rng = np.random.default_rng(1)
    series = [Series(1.0 + 0.01 * rng.standard_normal(300), id=f"a{k}") for k in range(4)]
    db = str(tmp_path / "adj.sqlite")
    with Store(db) as store:
        s = AnnotationSession.create(store, "adj", series)
        votes = {"a0": (10, 12, 250), "a1": (40, 200, 260), "a2": (30, 31, 280), "a3": (5, 150, 6)}
        for k, name in enumerate(("j1", "j2", "j3")):
            j = s.judge(name, create=True)
            for sid, onsets in votes.items():
                s.record(j, sid, steady=True, onset=onsets[k])
    w = AnnotationWindow()
    qtbot.addWidget(w)
    w.show()
    assert w.open_session(db, "adj", "ada", role="adjudicator")
    w.set_review(True)
    lst = w.review.disagreements
    before = [lst.item(i).data(Qt.ItemDataRole.UserRole) for i in range(lst.count())]
    assert len(before) >= 2
    w.go_to_series(before[0])
    w.review.stop()
    assert before[0] in w.review.accept_button.text()
    w.review.accept_consensus()
    after = [lst.item(i).data(Qt.ItemDataRole.UserRole) for i in range(lst.count())]
    assert after == before  # nothing moved under the mouse
    w.close()


def test_run_now_starts_the_evaluation_with_a_colour_of_its_own(qtbot, sample, tmp_path):
    from segview.gui.evaluate.view import EvaluationWindow
    from segview.gui.main_window import MainWindow

    settings = Settings()
    settings.set_enabled_methods(set())
    win = MainWindow(settings, specs=[registry.get("kbkssd")], persist=False)
    qtbot.addWidget(win)
    assert win.open_paths([str(sample)])
    ev = EvaluationWindow(win)
    ev.cache_dir = str(tmp_path / "cache")
    qtbot.addWidget(ev)
    ev.panel.run_combo.setCurrentIndex(ev.panel.run_combo.findData("kbkssd"))
    with qtbot.waitSignal(ev.evaluated, timeout=120_000):
        ev.panel.add_run_button.click()  # no separate Evaluate click
    ev.panel.add_run_button.click()  # the same detector again: "kbkssd #2"
    colors = list(ev.colors.values())
    assert len(colors) == len(set(colors))  # every entry its own colour
    qtbot.waitUntil(lambda: not ev.is_running(), timeout=120_000)
    ev.close()


def test_table_header_marks_changed_parameters(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    model = win.dataset_panel.model
    col = 4
    assert model.headerData(col, Qt.Orientation.Horizontal) == "fake_cp"
    win.param_panel.set_value("fake_cp", "every", 300)
    assert model.headerData(col, Qt.Orientation.Horizontal) == "fake_cp \u2022"
    assert "every=300" in model.headerData(col, Qt.Orientation.Horizontal,
                                           Qt.ItemDataRole.ToolTipRole)
    win.undo_stack.undo()
    assert model.headerData(col, Qt.Orientation.Horizontal) == "fake_cp"


def test_exported_plot_has_a_legend_and_the_chosen_width(qtbot, make_window, sample, tmp_path):
    from PySide6.QtGui import QImage

    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    added = []
    orig = win._add_export_legend
    win._add_export_legend = lambda: added.append(orig()) or added[-1]
    path = tmp_path / "plot.png"
    win.export_plot(str(path), width=1800)
    img = QImage(str(path))
    assert img.width() == 1800
    legend = added[0]
    labels = [lab.text for _, lab in legend.items]
    assert win.current.id in labels[0] and any("Fake change points" in t for t in labels)
    assert legend.scene() is None  # removed again after the export


def test_restored_parameters_are_announced(qtbot, make_window):
    s = Settings()
    s.set_params(fakes.FAKE_CP, fakes.FAKE_CP.coerce({"every": 250}))
    win = make_window(fakes.FAKE_CP)
    texts = [win.messages.item(i).text() for i in range(win.messages.count())]
    assert any("every=250" in t and "restored" in t for t in texts)
    assert "\u2022" in win.method_list.item(0).text()  # the method list marks it too
    assert win.dataset_panel.model.headerData(4, Qt.Orientation.Horizontal) == "fake_cp \u2022"
