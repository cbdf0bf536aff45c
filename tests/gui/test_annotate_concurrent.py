"""Issue 30, items 11 and 2 in the annotation window; item 1 in its session dialog.

* Two windows as the same judge on the same series: a stale window's write is refused, it is told,
  shows the newer label, and only its next action replaces it; Ctrl+Z undoes only what that window
  did, never the other window's label.
* The database file deleted while the window is open: a message, the window keeps running, and the
  label is not shown as saved.
* ``$SEGVIEW_DB`` holding a URL: the dialog shows it masked and connects to that URL.

Every check of what is stored reads the database through a fresh connection."""
from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from segview.core.annotation.session import AnnotationSession  # noqa: E402
from segview.core.annotation.store import Store  # noqa: E402
from segview.core.model import Series  # noqa: E402
from segview.gui.annotate.window import AnnotationWindow  # noqa: E402


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "ann.sqlite"
    with Store(path) as store:
        AnnotationSession.create(store, "s", [Series(1.0 + np.arange(300.0) / 300 + k, id=f"t{k}")
                                              for k in range(4)])
    return str(path)


def stored(db: str) -> dict:
    with Store(db) as store:
        s = AnnotationSession.open(store, "s")
        return {sid: (lab.steady, lab.onset) for sid, lab in s.labels(s.judge("alice")).items()}


def window(qtbot, db: str) -> AnnotationWindow:
    w = AnnotationWindow()
    qtbot.addWidget(w)
    w.resize(1000, 600)
    assert w.open_session(db, "s", "alice")
    return w


def show(w: AnnotationWindow, sid: str) -> None:
    w.go_to_series(sid)
    assert w.series_id == sid


def test_stale_window_is_told_shows_the_newer_label_then_may_overwrite(qtbot, db):
    a, b = window(qtbot, db), window(qtbot, db)
    show(a, "t1")
    show(b, "t1")  # both show "not labelled yet"
    with qtbot.waitSignal(a.saved):
        a.set_onset(100)
    assert stored(db) == {"t1": (True, 100)}
    assert "not labelled" in b.label_line.text()  # b has not looked again
    with qtbot.waitSignal(b.failed) as refused:
        b.set_onset(200)  # based on a stale view: refused
    assert "another window" in refused.args[0] and "steady from sample 100" in refused.args[0]
    assert stored(db) == {"t1": (True, 100)}  # a's label stands
    assert "steady from sample 100" in b.label_line.text()  # b now shows the newer label
    assert b.plot.onset == 100
    with qtbot.waitSignal(b.saved):
        b.set_onset(200)  # knowingly, after seeing it
    assert stored(db) == {"t1": (True, 200)}


def test_stale_clear_is_refused_too(qtbot, db):
    a, b = window(qtbot, db), window(qtbot, db)
    show(a, "t2")
    with qtbot.waitSignal(a.saved):
        a.set_onset(50)
    show(b, "t2")  # b sees 50
    with qtbot.waitSignal(a.saved):
        a.mark_unsteady()
    with qtbot.waitSignal(b.failed):
        b.clear_label()  # b would clear the label it saw (50), not a's newer "unsteady"
    assert stored(db) == {"t2": (False, None)}
    assert "unsteady" in b.label_line.text()


def test_undo_undoes_only_this_windows_action(qtbot, db):
    a, b = window(qtbot, db), window(qtbot, db)
    show(a, "t0")
    with qtbot.waitSignal(a.saved):
        a.set_onset(10)
    show(b, "t3")
    with qtbot.waitSignal(b.saved):
        b.set_onset(30)  # the judge's latest action, made in b
    assert stored(db) == {"t0": (True, 10), "t3": (True, 30)}
    with qtbot.waitSignal(a.saved):
        a.undo()  # a's Ctrl+Z: a's own label on t0, not b's on t3
    assert stored(db) == {"t3": (True, 30)}
    assert a.series_id == "t0" and "not labelled" in a.label_line.text()
    assert "steady from sample 30" in b.label_line.text()
    a.undo()  # nothing else of a's to undo: b's label stays
    assert stored(db) == {"t3": (True, 30)}
    assert "Nothing to undo" in a.statusBar().currentMessage()


def test_undo_skips_an_action_the_other_window_replaced(qtbot, db):
    a, b = window(qtbot, db), window(qtbot, db)
    show(a, "t1")
    with qtbot.waitSignal(a.saved):
        a.set_onset(100)
    show(b, "t1")  # b sees 100 ...
    with qtbot.waitSignal(b.saved):
        b.set_onset(150)  # ... and moves it
    a.undo()  # a's action on t1 is not in effect any more: b's label must not change
    assert stored(db) == {"t1": (True, 150)}


def test_ctrl_z_key_in_the_window(qtbot, db):
    a, b = window(qtbot, db), window(qtbot, db)
    show(b, "t2")
    with qtbot.waitSignal(b.saved):
        b.set_onset(20)
    show(a, "t0")
    with qtbot.waitSignal(a.saved):
        a.set_onset(5)
    with qtbot.waitSignal(b.saved):
        b.set_onset(25)  # b's latest
    a.show()
    qtbot.waitExposed(a)
    a.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is a)
    with qtbot.waitSignal(a.saved):
        qtbot.keyClick(a, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert stored(db) == {"t2": (True, 25)}


def test_deleted_database_file_message_and_no_saved_label(qtbot, db):
    a = window(qtbot, db)
    show(a, "t1")
    with qtbot.waitSignal(a.saved):
        a.set_onset(40)
    os.remove(db)
    with qtbot.waitSignal(a.failed) as failed:
        a.set_onset(90)
    assert db in failed.args[0] and "NOT saved" in failed.args[0]
    assert "90" not in a.label_line.text()
    assert not a.statusBar().currentMessage().startswith("Saved")
    assert a.message_box is not None and "NOT saved" in a.message_box.text()
    assert a.session is not None  # still running: the next action is reported the same way
    with qtbot.waitSignal(a.failed):
        a.mark_unsteady()
    assert not os.path.exists(db)


def test_dialog_takes_segview_db_url_as_a_url_and_masks_it(qtbot, monkeypatch, tmp_path):
    from segview.gui.annotate.session_dialog import SessionDialog

    monkeypatch.chdir(tmp_path)
    url = "postgresql://judge:Pw9secret@127.0.0.1:1/seg"
    monkeypatch.setenv("SEGVIEW_DB", url)
    dlg = SessionDialog()
    qtbot.addWidget(dlg)
    assert "Pw9secret" not in dlg.db_edit.text() and "127.0.0.1:1" in dlg.db_edit.text()
    assert "Pw9secret" not in dlg.error.text() and "127.0.0.1" in dlg.error.text()
    assert dlg.db_url().endswith("judge:Pw9secret@127.0.0.1:1/seg")  # the real URL is used
    assert list(tmp_path.iterdir()) == []  # no local file named like the URL
