"""Annotation window (pytest-qt, offscreen): keyboard-first labelling, undo, resume, blinding,
change-point protocol, review mode, and database errors. Every check reads the labels back from
the store (a fresh connection), not from the window."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from segview.core.annotation.session import AnnotationSession  # noqa: E402
from segview.core.annotation.store import Store  # noqa: E402
from segview.core.model import Series  # noqa: E402
from segview.gui.annotate.window import AnnotationWindow  # noqa: E402

N = 400
N_SERIES = 8


def _series() -> list[Series]:
    rng = np.random.default_rng(7)
    out = []
    for k in range(N_SERIES):
        v = 1.0 + 0.01 * rng.standard_normal(N)
        v[: 50 + 20 * k] += np.linspace(1.0, 0.0, 50 + 20 * k)  # a warm-up that settles
        out.append(Series(v, id=f"t{k:02d}"))
    return out


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "ann.sqlite"
    with Store(path) as store:
        AnnotationSession.create(store, "steady", _series(), protocol="steady_state")
        AnnotationSession.create(store, "cps", _series(), protocol="change_points")
    return str(path)


def stored_labels(db: str, session: str, judge: str) -> dict:
    with Store(db) as store:
        s = AnnotationSession.open(store, session)
        return s.labels(s.judge(judge))


def n_history(db: str) -> int:
    with Store(db) as store:
        return len(AnnotationSession.open(store, "steady").history())


def make_window(qtbot) -> AnnotationWindow:
    w = AnnotationWindow()
    qtbot.addWidget(w)
    w.resize(1200, 700)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w)  # shortcuts need an active window
    return w


def click_at(w: AnnotationWindow, x: float, button=Qt.MouseButton.LeftButton) -> None:
    """A real mouse click on the plot at data x (y = the series value there)."""
    k = int(np.clip(round(x), 0, w.plot.n - 1))
    p = w.plot.view_to_widget(x, float(w.plot.values[k]))
    QTest.mouseClick(w.plot.viewport(), button, Qt.KeyboardModifier.NoModifier,
                     QPoint(round(p.x()), round(p.y())))


def key(qtbot, w, k, mod=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(w, k, mod)


def click_and_confirm(qtbot, w: AnnotationWindow, x: float, signal: str = "saved") -> None:
    """A click marks the sample (nothing saved); Enter saves it (``signal`` is awaited)."""
    with qtbot.waitSignal(w.plot.pending_placed):
        click_at(w, x)
    with qtbot.waitSignal(getattr(w, signal)):
        key(qtbot, w, Qt.Key.Key_Return)


def test_five_series_keyboard_one_click_undo_quit_resume(qtbot, db):
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "alice")
    order = [it.series_id for it in w.order]
    assert sorted(order) == [f"t{k:02d}" for k in range(N_SERIES)]
    expected = {}
    targets = [120, 200, 75, 310, 160]
    for k, t in enumerate(targets):
        assert w.series_id == order[k], (k, w.pos, w.statusBar().currentMessage())
        # one click a little LEFT of sample t: nearest-sample snapping gives t (truncation: t-1);
        # Enter saves it
        click_and_confirm(qtbot, w, t - 0.3)
        assert stored_labels(db, "steady", "alice")[order[k]].onset == t
        if k == 2:
            key(qtbot, w, Qt.Key.Key_U)  # changed their mind: never steady
            expected[order[k]] = (False, None)
        elif k == 3:
            key(qtbot, w, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)  # +10
            key(qtbot, w, Qt.Key.Key_Left)  # -1
            expected[order[k]] = (True, t + 9)
        else:
            key(qtbot, w, Qt.Key.Key_Right)  # +1
            expected[order[k]] = (True, t + 1)
        key(qtbot, w, Qt.Key.Key_N)
    assert w.series_id == order[5]
    assert w.progress.text() == f"5 / {N_SERIES} labelled"
    # undo the last action (the +1 nudge on the fifth series): the window goes back there
    key(qtbot, w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert w.series_id == order[4]
    expected[order[4]] = (True, targets[4])
    got = {sid: (lab.steady, lab.onset) for sid, lab in stored_labels(db, "steady", "alice").items()}
    assert got == expected
    # redo and undo again through both redo shortcuts
    key(qtbot, w, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert stored_labels(db, "steady", "alice")[order[4]].onset == targets[4] + 1
    key(qtbot, w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    key(qtbot, w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    key(qtbot, w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert stored_labels(db, "steady", "alice")[order[4]].onset == targets[4]
    w.close()

    w2 = make_window(qtbot)
    assert w2.open_session(db, "steady", "alice")
    assert [it.series_id for it in w2.order] == order  # the stored seeded order
    assert w2.series_id == order[4]  # exactly where the judge stopped
    assert w2.plot.onset == targets[4] and w2.plot.onset_line.isVisible()
    assert f"steady from sample {targets[4]}" in w2.label_line.text()
    assert w2.progress.text() == f"5 / {N_SERIES} labelled"
    got = {sid: (lab.steady, lab.onset) for sid, lab in w2.labels.items()}
    assert got == expected
    key(qtbot, w2, Qt.Key.Key_P)
    assert w2.series_id == order[3] and w2.plot.onset == targets[3] + 9


def test_second_judge_sees_nothing_of_the_first(qtbot, db):
    with Store(db) as store:
        s = AnnotationSession.open(store, "steady")
        alice = s.judge("alice", create=True)
        for k, it in enumerate(s.items()):
            s.record(alice, it.series_id, steady=True, onset=100 + k)
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "bob")
    assert w.labels == {}
    assert w.progress.text() == f"0 / {N_SERIES} labelled"
    seen = set()
    for _ in range(N_SERIES):
        seen.add(w.series_id)
        assert w.label_line.text() == "Your label: not labelled yet"
        assert not w.plot.onset_line.isVisible() and w.plot.overlays == []
        key(qtbot, w, Qt.Key.Key_N)
    assert len(seen) == N_SERIES
    # review mode is locked for a judge who has not finished (blind)
    w.review_action.trigger()
    assert not w.review_mode and w.plot.overlays == []
    assert "Blind" in w.statusBar().currentMessage()
    # bob's own labels do not touch alice's
    key(qtbot, w, Qt.Key.Key_U)
    assert len(stored_labels(db, "steady", "alice")) == N_SERIES
    assert {lab.steady for lab in stored_labels(db, "steady", "alice").values()} == {True}


def test_skip_returns_later_and_resume_after_skip(qtbot, db):
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "carol")
    order = [it.series_id for it in w.order]
    key(qtbot, w, Qt.Key.Key_K)  # skip the first
    assert w.series_id == order[1]
    for _ in range(N_SERIES - 1):
        key(qtbot, w, Qt.Key.Key_U)
        key(qtbot, w, Qt.Key.Key_N)
    assert w.series_id == order[0]  # the skipped one came back
    assert "not labelled yet" in w.label_line.text()
    key(qtbot, w, Qt.Key.Key_P)
    w.close()
    w2 = make_window(qtbot)
    assert w2.open_session(db, "steady", "carol")
    assert w2.series_id == w.series_id


def test_bad_or_missing_database_shows_a_message_and_keeps_running(qtbot, db, tmp_path):
    w = make_window(qtbot)
    bad = tmp_path / "not-a-db.sqlite"
    bad.write_bytes(b"this is not an SQLite file " * 200)
    assert not w.open_session(str(bad), "steady", "alice")
    assert w.message_box is not None and w.message_box.isVisible()
    assert "not-a-db.sqlite" in w.message_box.text()
    w.message_box.close()
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert not w.open_session(str(folder), "steady", "alice")
    assert w.message_box.isVisible() and "a-folder" in w.message_box.text()
    w.message_box.close()
    assert not w.open_session(str(tmp_path / "empty.sqlite"), "nosuch", "alice")  # no session
    assert "nosuch" in w.message_box.text()
    w.message_box.close()
    assert w.session is None and w.isVisible()
    assert w.open_session(db, "steady", "alice")  # still working
    key(qtbot, w, Qt.Key.Key_U)
    assert stored_labels(db, "steady", "alice")[w.series_id].steady is False


def test_change_points_add_move_remove_round_trip(qtbot, db):
    w = make_window(qtbot)
    assert w.open_session(db, "cps", "dana")
    sid = w.series_id
    cps = lambda: stored_labels(db, "cps", "dana")[sid].change_points  # noqa: E731
    for x in (100.3, 249.8, 330):
        click_and_confirm(qtbot, w, x)
    assert cps() == (100, 250, 330)
    # drag the line at 100 to 140 (committed once, on release)
    line = next(ln for ln in w.plot.cp_lines if ln.value() == 100)
    vp = w.plot.viewport()
    y = float(np.median(w.plot.values))
    a, b = w.plot.view_to_widget(100, y), w.plot.view_to_widget(140, y)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(round(a.x()), round(a.y())))
    for f in np.linspace(0, 1, 6)[1:]:
        QTest.mouseMove(vp, QPoint(round(a.x() + f * (b.x() - a.x())), round(a.y())))
    with qtbot.waitSignal(w.saved):
        QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                           QPoint(round(b.x()), round(b.y())))
    assert all(ln.value() != 100 for ln in w.plot.cp_lines) and line.scene() is None
    assert cps() == (140, 250, 330)
    # right click near 250 removes it; Delete removes the one nearest the mouse
    with qtbot.waitSignal(w.saved):
        click_at(w, 262, Qt.MouseButton.RightButton)
    assert cps() == (140, 330)
    w.plot._cursor_x = 320.0
    key(qtbot, w, Qt.Key.Key_Delete)
    assert cps() == (140,)
    key(qtbot, w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert cps() == (140, 330)
    w.close()
    w2 = make_window(qtbot)
    assert w2.open_session(db, "cps", "dana")
    assert w2.series_id == sid and w2.plot.change_points() == (140, 330)
    key(qtbot, w2, Qt.Key.Key_E)  # looked: none
    assert cps() == ()


def test_review_mode_for_an_adjudicator(qtbot, db):
    with Store(db) as store:
        s = AnnotationSession.open(store, "steady")
        sid = s.items()[0].series_id
        for name, onset in (("alice", 100), ("bob", 110), ("carol", 300)):
            s.record(s.judge(name, create=True), sid, steady=True, onset=onset)
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "ada", role="adjudicator")
    w.go_to_series(sid)
    assert w.plot.overlays == []  # nothing outside review mode
    w.review_action.trigger()
    assert w.review_mode
    positions = sorted(ln.value() for ln in w.plot.overlays)
    assert positions[:3] == [100, 110, 300]
    assert sid in [w.review.disagreements.item(k).data(Qt.ItemDataRole.UserRole)
                   for k in range(w.review.disagreements.count())]
    assert w.review.checked_detectors() == ["kbkssd"]  # detector overlays only in review mode
    qtbot.waitUntil(lambda: "kbkssd" in w.review.results, timeout=60_000)
    onset = w.review.results["kbkssd"].steady_start
    assert onset is None or onset in [ln.value() for ln in w.plot.overlays]
    w.review.accept_consensus()
    with Store(db) as store:
        s = AnnotationSession.open(store, "steady")
        adj = s.adjudications()[sid]
        assert adj.steady and adj.index == 110 and adj.adjudicator == "ada"
        judges = s.all_labels()[sid]
        assert {j: lab.onset for j, lab in judges.items()} == {"alice": 100, "bob": 110,
                                                               "carol": 300}
    w.review_action.trigger()
    assert not w.review_mode and w.plot.overlays == []
    w.close()


def test_change_point_review_proposes_auto(qtbot, db):
    """In a change-point session's review mode the detector proposals are segview's default
    change-point method ``auto`` (issue 28), drawn as dotted lines at its change points."""
    from segview.core.api import detect

    with Store(db) as store:
        s = AnnotationSession.open(store, "cps")
        sid = s.items()[0].series_id
        for name, cps in (("alice", [60]), ("bob", [60, 200])):
            s.record(s.judge(name, create=True), sid, change_points=cps)
    w = make_window(qtbot)
    assert w.open_session(db, "cps", "ada", role="adjudicator")
    w.go_to_series(sid)
    w.review_action.trigger()
    assert w.review_mode
    assert w.review.checked_detectors() == ["auto"]
    qtbot.waitUntil(lambda: "auto" in w.review.results, timeout=60_000)
    expected = [int(c) for c in detect(w.current.values, "auto").change_points]
    assert [int(c) for c in w.review.results["auto"].change_points] == expected
    drawn = sorted(ln.value() for ln in w.plot.overlays)
    assert all(c in drawn for c in expected)
    w.review_action.trigger()
    w.close()


def test_cli_registers_annotate():
    from segview.cli.main import build_parser

    args = build_parser().parse_args(["annotate", "a.json", "--db", "x.sqlite", "--session", "s",
                                      "--judge", "j"])
    assert (args.paths, args.db, args.session, args.judge) == (["a.json"], "x.sqlite", "s", "j")


def test_explorer_menu_opens_annotation_on_loaded_files(qtbot, jmh_dir, monkeypatch):
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    asked = []
    monkeypatch.setattr(AnnotationWindow, "ask_session", lambda self, *a: asked.append(self))
    mw = MainWindow(Settings(), specs=[], persist=False)
    qtbot.addWidget(mw)
    files = [str(jmh_dir / "series" / f"s000{k}.json") for k in (1, 2)]
    assert mw.open_paths(files)
    act = next(a for a in mw.actions() if a.text() == "&Annotate…")
    assert act.shortcut().toString() == "Ctrl+Shift+A"
    act.trigger()
    qtbot.waitUntil(lambda: len(asked) == 1)
    assert asked[0] is mw.annotation_window and mw.annotation_window.paths == files
    mw.annotation_window.close()


def test_zoomed_in_click_still_snaps_to_the_nearest_sample(qtbot, db):
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "erin")
    w.plot.plotItem.setXRange(200, 230, padding=0)  # zoom while annotating
    click_and_confirm(qtbot, w, 214.45)
    assert stored_labels(db, "steady", "erin")[w.series_id].onset == 214
    (x0, x1), _ = w.plot.plotItem.getViewBox().viewRange()
    assert (x0, x1) == pytest.approx((200, 230), abs=1)  # labelling does not reset the zoom
    key(qtbot, w, Qt.Key.Key_R)  # R resets the view to the whole series
    (x0, x1), _ = w.plot.plotItem.getViewBox().viewRange()
    assert x0 <= 0 and x1 >= N - 1


def test_new_session_from_files_and_database_shown(qtbot, tmp_path):
    files = []
    for k, s in enumerate(_series()[:3]):
        f = tmp_path / f"series{k}.csv"
        f.write_text("value\n" + "\n".join(repr(float(v)) for v in s.values) + "\n")
        files.append(str(f))
    db = str(tmp_path / "sub" / "new.sqlite")
    w = make_window(qtbot)
    # three files whose single column has the same name: same series id, refused with a message
    assert not w.open_session(db, "fresh", "fay", create=True, paths=files)
    assert "unique" in w.message_box.text() and "value" in w.message_box.text()
    w.message_box.close()
    for k, f in enumerate(files):
        text = open(f).read()
        open(f, "w").write(text.replace("value", f"bench{k}", 1))
    assert w.open_session(db, "fresh", "fay", create=True, paths=files)
    assert len(w.order) == 3
    assert str(tmp_path / "sub" / "new.sqlite") in w.statusBar().currentMessage()
    key(qtbot, w, Qt.Key.Key_U)
    with Store(db) as store:
        s = AnnotationSession.open(store, "fresh")
        assert len(s.items()) == 3 and s.series(w.series_id).values.size == N


def test_session_dialog_reports_a_bad_database_and_lists_sessions(qtbot, db, tmp_path):
    from segview.gui.annotate.session_dialog import SessionDialog

    with Store(db) as store:
        AnnotationSession.open(store, "steady").judge("alice", create=True)
    bad = tmp_path / "junk.sqlite"
    bad.write_bytes(b"junk" * 500)
    dlg = SessionDialog(str(bad), [], None, None)
    qtbot.addWidget(dlg)
    assert "junk.sqlite" in dlg.error.text() and dlg.session_combo.count() == 0
    dlg.db_edit.setText(db)
    assert dlg.connect_db()
    assert dlg.error.text() == ""
    assert [dlg.session_combo.itemText(k) for k in range(dlg.session_combo.count())] == \
        ["steady", "cps"]
    assert db in dlg.db_status.text()
    dlg.session_combo.setCurrentText("steady")
    assert dlg.judge_combo.findText("alice") >= 0
    dlg.judge_combo.setEditText("gus")
    c = dlg.choice()
    assert (c.db, c.session, c.judge, c.create) == (db, "steady", "gus", False)


def test_onset_drag_confidence_and_clear(qtbot, db):
    w = make_window(qtbot)
    assert w.open_session(db, "steady", "hana")
    sid = w.series_id
    lab = lambda: stored_labels(db, "steady", "hana").get(sid)  # noqa: E731
    key(qtbot, w, Qt.Key.Key_Right)  # nothing to nudge yet: nothing stored
    assert lab() is None
    key(qtbot, w, Qt.Key.Key_S)  # steady, onset still to click
    assert (lab().steady, lab().onset) == (True, None)
    click_and_confirm(qtbot, w, 150)
    # drag the onset line from 150 to about 260: one new label, on release, snapped
    y = float(np.median(w.plot.values))
    a, b = w.plot.view_to_widget(150, y), w.plot.view_to_widget(260, y)
    vp = w.plot.viewport()
    n_events = n_history(db)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(round(a.x()), round(a.y())))
    for f in np.linspace(0, 1, 8)[1:]:
        QTest.mouseMove(vp, QPoint(round(a.x() + f * (b.x() - a.x())), round(a.y())))
    assert n_history(db) == n_events  # not yet
    with qtbot.waitSignal(w.saved):
        QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                           QPoint(round(b.x()), round(b.y())))
    assert n_history(db) == n_events + 1
    dragged = lab().onset
    assert abs(dragged - 260) <= 2 and w.plot.onset == dragged
    assert float(w.plot.onset_line.value()) == dragged  # the line sits on a sample
    key(qtbot, w, Qt.Key.Key_3)
    assert lab().confidence == 1.0 and lab().onset == dragged
    key(qtbot, w, Qt.Key.Key_Left)  # a correction keeps the confidence
    assert (lab().onset, lab().confidence) == (dragged - 1, 1.0)
    assert "confidence high" in w.label_line.text()
    key(qtbot, w, Qt.Key.Key_Backspace)
    assert lab() is None and "not labelled yet" in w.label_line.text()
    key(qtbot, w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert (lab().onset, lab().confidence) == (dragged - 1, 1.0)


def test_a_failed_save_is_reported_and_the_screen_shows_the_stored_label(qtbot, db, monkeypatch):
    from segview.core.errors import RecoverableError

    w = make_window(qtbot)
    assert w.open_session(db, "steady", "ivan")
    key(qtbot, w, Qt.Key.Key_U)
    sid = w.series_id

    def broken(*_a, **_k):
        raise RecoverableError("database is locked")

    monkeypatch.setattr(w.session, "record", broken)
    click_and_confirm(qtbot, w, 120, "failed")  # the save fails
    assert "Not saved" in w.message_box.text() and "locked" in w.message_box.text()
    assert not w.plot.onset_line.isVisible()  # back to what the store holds: unsteady
    assert w.label_line.text().startswith("Your label: unsteady")
    assert stored_labels(db, "steady", "ivan")[sid].steady is False


def test_cli_annotate_opens_or_creates_the_session(qtbot, tmp_path, monkeypatch, capsys):
    from segview.cli.main import main

    monkeypatch.setattr(QApplication, "exec", lambda *_a: 0)  # do not enter the event loop
    asked = []
    monkeypatch.setattr(AnnotationWindow, "ask_session", lambda self, *a: asked.append(a))
    f = tmp_path / "one.csv"
    f.write_text("bench\n" + "\n".join(str(1.0 + (k % 7) / 100) for k in range(300)) + "\n")
    db = str(tmp_path / "cli.sqlite")
    assert main(["annotate", str(f), "--db", db, "--session", "cli", "--judge", "kim"]) == 0
    assert db in capsys.readouterr().err
    with Store(db) as store:
        s = AnnotationSession.open(store, "cli")
        assert [it.series_id for it in s.items()] == ["bench"]
        assert [j.name for j in s.judges()] == ["kim"]
        assert s.last_visited(s.judge("kim")) == "bench"  # the window opened it
    assert asked == []  # everything was given: no dialog
    assert main(["annotate", "--db", db]) == 0  # no session/judge given: the dialog asks
    qtbot.waitUntil(lambda: len(asked) == 1)
    assert asked[0] == (db, None, None)
    for w in QApplication.topLevelWidgets():
        if isinstance(w, AnnotationWindow):
            w.close()


def test_failed_clear_on_a_full_disk_is_never_reported_as_saved(qtbot, db, monkeypatch):
    """Issue 17, item 8: a clear that fails on a full disk showed "Not saved" and then
    "Saved ... cleared". The write itself fails here (Store.write), as on a full disk."""
    from contextlib import contextmanager

    from segview.core.errors import RecoverableError

    w = make_window(qtbot)
    assert w.open_session(db, "steady", "jana")
    sid = w.series_id
    key(qtbot, w, Qt.Key.Key_U)
    assert stored_labels(db, "steady", "jana")[sid].steady is False
    saved: list[str] = []
    w.saved.connect(saved.append)

    @contextmanager
    def full_disk(self):
        raise RecoverableError(f"annotation database {self.display_url}: not saved "
                               "(database or disk is full)")
        yield  # pragma: no cover

    monkeypatch.setattr(Store, "write", full_disk)
    with qtbot.waitSignal(w.failed):
        key(qtbot, w, Qt.Key.Key_Backspace)
    status = w.statusBar().currentMessage()
    assert status.startswith("Not saved") and "disk is full" in status
    assert "Saved" not in status and "cleared" not in status
    assert saved == []  # no success signal for the failed action
    assert w.label_line.text().startswith("Your label: unsteady")  # what the store still holds
    monkeypatch.undo()
    assert stored_labels(db, "steady", "jana")[sid].steady is False
