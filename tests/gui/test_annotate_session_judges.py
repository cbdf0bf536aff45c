"""The session dialog creates a session with all its judges at once (issue 29: it added one judge
per start), each series optionally assigned to k of them, blind as before; the same list as
``segview session create --judge`` (pytest-qt, offscreen)."""
from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from segview.core.annotation.session import AnnotationSession  # noqa: E402
from segview.core.annotation.store import Store  # noqa: E402
from segview.gui.annotate.session_dialog import SessionDialog  # noqa: E402

from .test_annotate import _series, make_window  # noqa: E402


@pytest.fixture
def files(tmp_path):
    out = []
    for k, s in enumerate(_series()[:6]):
        f = tmp_path / f"s{k}.csv"
        f.write_text(f"bench{k}\n" + "\n".join(repr(float(v)) for v in s.values) + "\n")
        out.append(str(f))
    return out


def fill(dlg: SessionDialog, name: str, judges: str, me: str, per_series: int = 0,
         adjudicator: bool = False) -> None:
    dlg.new_radio.setChecked(True)
    dlg.new_name.setText(name)
    dlg.judges_edit.setText(judges)
    dlg.per_series.setValue(per_series)
    dlg.judge_combo.setEditText(me)
    dlg.adjudicator.setChecked(adjudicator)


def test_dialog_creates_a_blind_session_with_k_judges(qtbot, tmp_path, files, monkeypatch):
    db = str(tmp_path / "k.sqlite")
    w = make_window(qtbot)
    w.paths = files

    def start(dlg: SessionDialog) -> int:  # what the user types, then "Start annotating"
        fill(dlg, "trio", "alice, bob,carol, ,bob", "alice", per_series=2)
        assert "3 judge(s): alice, bob, carol" in dlg.judges_hint.text()
        assert "each series to 2" in dlg.judges_hint.text() and "blind" in dlg.judges_hint.text()
        dlg._on_accept()
        return dlg.result()

    monkeypatch.setattr(SessionDialog, "exec", start)
    with qtbot.waitSignal(w.series_shown):
        assert w.ask_session(db)
    with Store(db) as store:
        s = AnnotationSession.open(store, "trio")
        assert [(j.name, j.role) for j in s.judges()] == [("alice", "judge"), ("bob", "judge"),
                                                         ("carol", "judge")]
        assert s.blind
        assert set(s.judges_per_series().values()) == {2}  # each series to 2 of the 3
        assert sorted(len(s.assigned(j)) for j in s.judges()) == [4, 4, 4]
        assert len({tuple(it.series_id for it in s.order(j)) for j in s.judges()}) == 3
    assert w.judge.name == "alice" and len(w.order) == 4
    # bob starts with his own assigned series, seeing nothing of alice's
    sid = w.series_id
    with qtbot.waitSignal(w.saved):
        w.set_onset(150)
    w.close()
    w2 = make_window(qtbot)
    assert w2.open_session(db, "trio", "bob")
    assert len(w2.order) == 4 and w2.labels == {}
    assert w2.session.visible_labels(w2.judge, sid) == {}


def test_dialog_refuses_more_judges_per_series_than_judges(qtbot, tmp_path, files):
    dlg = SessionDialog(str(tmp_path / "r.sqlite"), files)
    qtbot.addWidget(dlg)
    fill(dlg, "duo", "bob", "alice", per_series=3)
    dlg._on_accept()
    assert dlg.result() != SessionDialog.DialogCode.Accepted
    assert "needs at least 3 judges" in dlg.error.text()
    fill(dlg, "duo", "alice, bob", "alice", adjudicator=True)
    dlg._on_accept()
    assert "marked adjudicator" in dlg.error.text()
    fill(dlg, "duo", "bob, carol", "ada", per_series=2, adjudicator=True)  # an adjudicator opens
    c = dlg.choice()
    assert (c.judges, c.all_judges(), c.role, c.per_series) == (["bob", "carol"], ["bob", "carol"],
                                                                 "adjudicator", 2)
    dlg.open_radio.setChecked(True)  # the list is for new sessions only
    assert not dlg.judges_edit.isEnabled() and dlg.choice().judges == []


def test_names_split_like_the_cli_list():
    from segview.core.annotation.session import split_judge_names

    assert split_judge_names(" alice, bob,,carol ,alice ") == ["alice", "bob", "carol"]
    assert split_judge_names("") == []
