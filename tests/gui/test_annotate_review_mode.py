"""Review mode says when it is on (issue 29: toggling it gave no visible feedback): the menu
item's check, a badge beside the title, the window title and the status line follow every toggle,
and a refused toggle says why (pytest-qt, offscreen)."""
from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from segview.gui.annotate import review  # noqa: E402

from .test_annotate import db, key, make_window  # noqa: E402,F401


@pytest.fixture(autouse=True)
def no_detectors(monkeypatch):
    """Review mode without detector runs: this is about what the window shows."""
    monkeypatch.setattr(review, "DEFAULT_DETECTORS", {"steady_state": (), "change_points": ()})


def test_toggling_review_mode_is_visible(qtbot, db):  # noqa: F811
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "olga", role="adjudicator")
    plain_title = w.windowTitle()
    assert not w.review_action.isChecked()
    key(qtbot, w, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # handled synchronously
    assert w.review_mode and w.review_action.isChecked()
    assert w.windowTitle() == plain_title + " — review mode"
    assert w.statusBar().currentMessage().startswith("Review mode on")
    assert w.review_badge.isVisible() and w.review_badge.text() == "REVIEW MODE"
    assert w.review_dock.isVisible()
    # the badge does not widen the window: with the review dock it still fits a 1280x720 screen
    # at 150 % (853 logical pixels)
    assert w.minimumSizeHint().width() <= 853, w.minimumSizeHint()
    with qtbot.waitSignal(w.review_changed) as off:
        key(qtbot, w, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert off.args == [False] and not w.review_mode
    assert not w.review_action.isChecked() and not w.review_badge.isVisible()
    assert w.windowTitle() == plain_title
    assert w.statusBar().currentMessage().startswith("Review mode off")
    assert not w.review_dock.isVisible()


def test_a_refused_toggle_says_why(qtbot, db):  # noqa: F811
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "pia")  # a blind judge with series still to label
    w.review_action.trigger()
    assert not w.review_mode and not w.review_action.isChecked()
    assert "review mode" not in w.windowTitle()
    msg = w.statusBar().currentMessage()
    assert msg.startswith("Blind session: review opens once all your series are labelled")
    assert "(0 / 8)" in msg
    assert not w.review_badge.isVisible()
    with qtbot.waitSignal(w.review_changed) as blk:  # again: the refusal is signalled too
        w.review_action.trigger()
    assert blk.args == [False]
