"""A click on the annotation plot is never a label by itself (issue 29): it marks the nearest sample
(shown, not saved), Enter or O saves it, Esc discards it, and the status line says which key does
what. Every check reads the store (a fresh connection), not the window."""
from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from segview.gui.annotate.actions import KEYS_HELP  # noqa: E402

from .test_annotate import click_at, db, key, make_window, n_history, stored_labels  # noqa: E402,F401


def mark(qtbot, w, x: float) -> None:
    with qtbot.waitSignal(w.plot.pending_placed) as blk:
        click_at(w, x)
    assert blk.args == [round(x)]


def test_a_click_marks_enter_saves_esc_discards(qtbot, db):  # noqa: F811
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "lena")
    sid = w.series_id
    label = lambda: stored_labels(db, "steady", "lena").get(sid)  # noqa: E731
    before = n_history(db)
    # an accidental click (handled synchronously): shown, not saved, and the status line says
    # what to press
    click_at(w, 150)
    assert label() is None and n_history(db) == before, "a click alone saved a label"
    assert w.plot.pending == 150 and w.plot.cursor == 150
    assert len(w.plot.pending_dot.data) == 1 and not w.plot.onset_line.isVisible()
    status = w.statusBar().currentMessage()
    assert "not saved" in status and "Enter" in status and "Esc" in status
    assert "Enter saves" in w.plot.cursor_line.label.format
    # Esc forgets it: the cursor goes back, still nothing saved
    key(qtbot, w, Qt.Key.Key_Escape)
    assert w.plot.pending is None and w.plot.cursor == 0 and len(w.plot.pending_dot.data) == 0
    assert "discarded" in w.statusBar().currentMessage()
    assert label() is None and n_history(db) == before
    # a click confirmed with Enter is saved at once
    mark(qtbot, w, 200)
    with qtbot.waitSignal(w.saved):
        key(qtbot, w, Qt.Key.Key_Return)
    assert (label().steady, label().onset) == (True, 200)
    assert w.plot.pending is None and w.plot.onset == 200
    # a stray click beside a saved onset changes nothing; O (the onset key) confirms a new one
    mark(qtbot, w, 260)
    assert label().onset == 200 and w.plot.onset == 200
    with qtbot.waitSignal(w.saved):
        key(qtbot, w, Qt.Key.Key_O)
    assert label().onset == 260
    # the arrows move a pending mark (not the saved onset); Enter saves where it ends
    mark(qtbot, w, 300)
    key(qtbot, w, Qt.Key.Key_Right)
    assert w.plot.pending == 301 and label().onset == 260
    with qtbot.waitSignal(w.saved):
        key(qtbot, w, Qt.Key.Key_Enter)
    assert label().onset == 301
    # S after a click: steady from the clicked sample
    mark(qtbot, w, 120)
    with qtbot.waitSignal(w.saved):
        key(qtbot, w, Qt.Key.Key_S)
    assert (label().steady, label().onset) == (True, 120)
    # a click left pending when moving on is dropped, not saved
    mark(qtbot, w, 330)
    key(qtbot, w, Qt.Key.Key_N)
    assert w.series_id != sid and w.plot.pending is None
    assert label().onset == 120
    assert w.series_id not in stored_labels(db, "steady", "lena")


def test_change_point_click_waits_for_enter(qtbot, db):  # noqa: F811
    w = make_window(qtbot)
    assert w.open_session(db, "cps", "mona")
    sid = w.series_id
    cps = lambda: stored_labels(db, "cps", "mona").get(sid)  # noqa: E731
    click_at(w, 100)
    assert cps() is None and w.plot.change_points() == (), "a click alone saved a change point"
    assert "change point" in w.statusBar().currentMessage()
    with qtbot.waitSignal(w.saved):
        key(qtbot, w, Qt.Key.Key_Return)
    assert cps().change_points == (100,)
    mark(qtbot, w, 250)
    key(qtbot, w, Qt.Key.Key_Escape)
    assert cps().change_points == (100,) and w.plot.change_points() == (100,)


def test_the_keys_and_the_help_say_how_a_click_is_saved(qtbot, db):  # noqa: F811
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "nina")
    for text in (w.keys.text(), *KEYS_HELP.values()):
        assert "click: mark a sample, then Enter/O" in text and "Esc discards" in text
    esc = [a for a in w.actions() if "Esc" in [k.toString() for k in a.shortcuts()]]
    assert [a.text() for a in esc] == ["Discard the clicked sample (not saved)"]
