"""Keyboard-only annotation: a judge labels a series without the mouse (cursor, typed index,
Home/End, larger steps, Enter), jumps to a series by id, and the shortcut strip says how."""
from __future__ import annotations

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

from .test_annotate import make_window  # noqa: E402

N = 3000
IDS = ("warm-a", "warm-b", "warm-c")


@pytest.fixture
def db(tmp_path):
    rng = np.random.default_rng(3)
    series = []
    for sid in IDS:
        v = 5.0 + 0.05 * rng.standard_normal(N)
        v[:1100] += np.linspace(3.0, 0.0, 1100)
        series.append(Series(v, id=sid))
    path = tmp_path / "kb.sqlite"
    with Store(path) as store:
        AnnotationSession.create(store, "kb", series, protocol="steady_state")
        AnnotationSession.create(store, "kbcp", series, protocol="change_points")
    return str(path)


def _stored(db: str, session: str, judge: str) -> dict:
    with Store(db) as store:
        s = AnnotationSession.open(store, session)
        return s.labels(s.judge(judge, create=True))


class Keys:
    """Counts key presses sent to the window (the acceptance is about presses, not events)."""

    def __init__(self, qtbot, w: AnnotationWindow) -> None:
        self.qtbot, self.w, self.count = qtbot, w, 0

    def __call__(self, k, mod=Qt.KeyboardModifier.NoModifier) -> None:
        target = QApplication.focusWidget() or self.w
        self.qtbot.keyClick(target, k, mod)
        self.count += 1

    def text(self, digits: str) -> None:
        for ch in digits:
            self(getattr(Qt.Key, f"Key_{ch}"))


def _window(qtbot, db: str, session: str = "kb") -> AnnotationWindow:
    w = make_window(qtbot)  # shown and active: shortcuts need an active window
    assert w.open_session(db, session, "kim")
    return w


def test_label_steady_at_1100_of_3000_by_typing_the_index(qtbot, db):
    w = _window(qtbot, db)
    sid = w.series_id
    keys = Keys(qtbot, w)
    keys(Qt.Key.Key_G)  # type an index
    assert w.entry.isVisible() and w.entry.hasFocus()
    keys.text("1100")
    keys(Qt.Key.Key_Return)  # cursor to 1100
    assert w.plot.cursor == 1100 and not w.entry.isVisible()
    assert sid not in _stored(db, "kb", "kim")  # moving the cursor stores nothing
    keys(Qt.Key.Key_Return)  # onset at the cursor
    lab = _stored(db, "kb", "kim")[sid]
    assert (lab.steady, lab.onset) == (True, 1100)
    assert keys.count < 15
    assert "steady from sample 1100" in w.label_line.text()


def test_label_steady_at_1100_with_home_and_large_steps(qtbot, db):
    w = _window(qtbot, db)
    sid = w.series_id
    keys = Keys(qtbot, w)
    keys(Qt.Key.Key_End)
    assert w.plot.cursor == N - 1
    keys(Qt.Key.Key_Home)
    for _ in range(11):
        keys(Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)  # +100 each
    assert w.plot.cursor == 1100
    keys(Qt.Key.Key_O)
    assert keys.count < 15
    lab = _stored(db, "kb", "kim")[sid]
    assert (lab.steady, lab.onset) == (True, 1100)
    # the cursor now sits on the onset: Shift+Left moves both, and it is saved
    keys(Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
    assert _stored(db, "kb", "kim")[sid].onset == 1090 and w.plot.cursor == 1090


def test_cursor_stays_visible_when_moved_out_of_view(qtbot, db):
    w = _window(qtbot, db)
    w.plot.plotItem.setXRange(0, 200, padding=0)
    keys = Keys(qtbot, w)
    keys(Qt.Key.Key_End)
    (x0, x1), _ = w.plot.plotItem.getViewBox().viewRange()
    assert x0 <= N - 1 <= x1 and x1 - x0 < 400  # panned there, zoom kept


def test_go_to_series_by_id_and_escape(qtbot, db):
    w = _window(qtbot, db)
    keys = Keys(qtbot, w)
    target = next(i for i in IDS if i != w.series_id)
    keys(Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    assert w.entry.isVisible()
    qtbot.keyClicks(w.entry, target)
    qtbot.keyClick(w.entry, Qt.Key.Key_Return)
    assert w.series_id == target
    keys(Qt.Key.Key_G)
    keys(Qt.Key.Key_Escape)
    assert not w.entry.isVisible()
    keys(Qt.Key.Key_N)  # window shortcuts work again after the entry closed
    assert w.series_id != target


def test_change_point_at_cursor_by_keyboard(qtbot, db):
    w = _window(qtbot, db, "kbcp")
    sid = w.series_id
    keys = Keys(qtbot, w)
    keys(Qt.Key.Key_G)
    keys.text("750")
    keys(Qt.Key.Key_Return)
    keys(Qt.Key.Key_Return)
    assert _stored(db, "kbcp", "kim")[sid].change_points == (750,)


def test_shortcut_strip_lists_the_keyboard_keys(qtbot, db):
    w = _window(qtbot, db)
    strip = w.keys.text()
    for needle in ("cursor", "Home/End", "G type an index", "Enter", "Ctrl+J"):
        assert needle in strip, needle
