"""Annotation store and session workflow (SQLite file; PostgreSQL in test_store_concurrency)."""
from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import func, insert, select

from segview.core.annotation import store as st
from segview.core.annotation.session import AnnotationSession
from segview.core.errors import DataFormatError, InputError, RecoverableError
from segview.core.model import Series


def _series(n_items=6, n=200):
    return [Series(np.sin(np.arange(n) / (k + 1)) + k, id=f"s{k}") for k in range(n_items)]


@pytest.fixture
def store(tmp_path):
    s = st.Store(tmp_path / "ann.sqlite")
    yield s
    s.close()


@pytest.fixture
def session(store):
    return AnnotationSession.create(store, "study", _series())


def _n_events(store):
    with store.read() as conn:
        return conn.execute(select(func.count()).select_from(st.events)).scalar()


def test_sqlite_file_uses_wal(store, tmp_path):
    with store.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert store.url.endswith("ann.sqlite")


def test_create_open_and_items(store, session):
    again = AnnotationSession.open(store, "study")
    assert [i.series_id for i in again.items()] == [f"s{k}" for k in range(6)]
    assert again.protocol == "steady_state" and again.settings["rule"] == "general"
    assert again.items()[2].content_hash == _series()[2].content_hash
    s2 = again.series("s2")
    np.testing.assert_array_equal(s2.values, _series()[2].values)
    assert store.session_names() == ["study"]
    with pytest.raises(InputError, match="already exists"):
        AnnotationSession.create(store, "study", _series())
    with pytest.raises(InputError, match="no such"):
        AnnotationSession.open(store, "nope")


def test_content_hash_detects_changed_data(session):
    changed = Series(np.zeros(200), id="s1")
    assert session.check_data(_series()) == []
    assert session.check_data([changed]) == ["s1"]


def test_seeded_order_is_recorded_and_per_judge(session, store):
    a = session.judge("alice", create=True, seed=7)
    b = session.judge("bob", create=True, seed=8)
    order_a = [i.series_id for i in session.order(a)]
    assert sorted(order_a) == [f"s{k}" for k in range(6)]
    reopened = AnnotationSession.open(store, "study")
    assert [i.series_id for i in reopened.order(reopened.judge("alice"))] == order_a
    assert order_a != [i.series_id for i in session.order(b)]
    assert reopened.judge("alice").seed == 7


def test_record_undo_redo_are_history(session, store):
    j = session.judge("alice", create=True)
    session.record(j, "s0", steady=True, onset=12)
    session.record(j, "s1", steady=False)
    session.record(j, "s0", steady=True, onset=15)
    assert session.label(j, "s0").onset == 15
    assert session.undo(j) == "s0"
    assert session.label(j, "s0").onset == 12
    assert session.undo(j) == "s1"
    assert session.label(j, "s1") is None
    assert session.redo(j) == "s1"
    assert session.label(j, "s1").steady is False
    assert session.can_redo(j)
    session.record(j, "s2", steady=True, onset=0)  # a new action clears the redo stack
    assert not session.can_redo(j) and session.redo(j) is None
    session.clear(j, "s2")
    assert session.label(j, "s2") is None
    n = _n_events(store)
    assert n == 8  # 4 labels + clear + 2 undos + redo: nothing deleted
    kinds = [e.kind for e in session.history(j)]
    assert kinds == ["label", "label", "label", "undo", "undo", "redo", "label", "clear"]


def test_resume_and_progress(session):
    a = session.judge("alice", create=True, seed=3)
    b = session.judge("bob", create=True, seed=4)
    order = session.order(a)
    for it in order[:3]:
        session.record(a, it.series_id, steady=True, onset=5)
    assert session.resume_position(a) == 3
    session.record(a, order[4].series_id, steady=False)  # skipped order[3]
    assert session.resume_position(a) == 3
    assert session.next_unannotated(a, after=3).series_id == order[5].series_id
    assert session.next_unannotated(a, after=5).series_id == order[3].series_id
    assert session.progress() == {"alice": (4, 6), "bob": (0, 6)}
    assert session.resume_position(b) == 0


def test_blind_mode_hides_other_judges(session):
    a = session.judge("alice", create=True)
    b = session.judge("bob", create=True)
    chief = session.judge("chief", create=True, role="adjudicator")
    session.record(a, "s0", steady=True, onset=40)
    assert session.labels(b) == {}
    assert session.visible_labels(b, "s0") == {}
    assert session.visible_labels(b, "s0", review=True)["alice"].onset == 40
    assert session.visible_labels(chief, "s0")["alice"].onset == 40


def test_adjudication_beside_judges_labels(session):
    a, b = session.judge("a", create=True), session.judge("b", create=True)
    chief = session.judge("chief", create=True, role="adjudicator")
    session.record(a, "s0", steady=True, onset=40)
    session.record(b, "s0", steady=False)
    (auto,) = session.aggregate()
    assert auto.disputed and auto.steady is None
    with pytest.raises(InputError, match="not an adjudicator"):
        session.adjudicate(a, "s0", steady=True, onset=1)
    session.adjudicate(chief, "s0", steady=True, onset=44)
    (final,) = session.aggregate()
    assert (final.steady, final.reference_index, final.method) == (True, 44, "adjudicated")
    assert session.label(a, "s0").onset == 40 and session.label(b, "s0").steady is False


def test_validation(session):
    j = session.judge("alice", create=True)
    with pytest.raises(InputError, match="outside"):
        session.record(j, "s0", steady=True, onset=200)
    with pytest.raises(InputError, match="unsteady series has no onset"):
        session.record(j, "s0", steady=False, onset=3)
    with pytest.raises(InputError, match="not a series"):
        session.record(j, "zzz", steady=True)
    with pytest.raises(InputError, match="no judge"):
        session.judge("nobody")


def test_change_point_protocol(store):
    s = AnnotationSession.create(store, "cp", _series(3), protocol="change_points",
                                 settings={"eps": 5})
    a, b, c = (s.judge(n, create=True) for n in "abc")
    s.record(a, "s0", change_points=[50, 120])
    s.record(b, "s0", change_points=[52])
    s.record(c, "s0", change_points=[])  # looked, none
    assert s.label(c, "s0").change_points == ()
    assert s.label(a, "s0").change_points == (50, 120)
    assert s.consensus_change_points() == {"s0": [52]}
    with pytest.raises(InputError, match="outside"):
        s.record(a, "s1", change_points=[0])
    with pytest.raises(InputError, match="needs a list"):
        s.record(a, "s1", steady=True)


def test_values_not_stored(store):
    s = AnnotationSession.create(store, "nodata", _series(2), store_values=False)
    with pytest.raises(DataFormatError, match="does not store"):
        s.series("s0")


def test_bad_url_is_recoverable(tmp_path):
    with pytest.raises(RecoverableError, match="cannot be opened"):
        st.Store("nosuchdialect://x/y")
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(RecoverableError):
        st.Store(bad)


def test_default_db_path(tmp_path, monkeypatch):
    monkeypatch.delenv("SEGVIEW_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    assert st.default_db_path() == tmp_path / "segview-annotations.sqlite"
    assert st.normalise_url(None).endswith("segview-annotations.sqlite")
    monkeypatch.setenv("SEGVIEW_DB", str(tmp_path / "x.sqlite"))
    assert st.default_db_path() == tmp_path / "x.sqlite"
    assert st.normalise_url("postgresql://u@h/d").startswith("postgresql+psycopg://")


def test_visits_mark_resume_point_without_touching_undo(session):
    j = session.judge("alice", create=True)
    assert session.last_visited(j) is None
    session.record(j, "s0", steady=True, onset=3)
    session.visit(j, "s4")
    assert session.last_visited(j) == "s4"
    assert session.undo(j) == "s0" and session.label(j, "s0") is None
    assert [e.kind for e in session.history(j)] == ["label", "visit", "undo"]


def test_second_store_on_same_file_sees_commits(tmp_path):
    path = tmp_path / "two.sqlite"
    a, b = st.Store(path), st.Store(path)
    sa = AnnotationSession.create(a, "s", _series(2))
    sb = AnnotationSession.open(b, "s")
    ja = sa.judge("x", create=True)
    assert sb.judge("x", create=True) == ja  # existing judge, not a duplicate
    sa.record(ja, "s1", steady=False)
    assert sb.label(sb.judge("x"), "s1").steady is False
    with pytest.raises(InputError, match="already exists"):
        AnnotationSession.create(b, "s", _series(2))


def test_calibration_repeats_are_hidden_and_measured(store):
    s = AnnotationSession.create(store, "cal", _series(6), settings={"calibration": 2})
    j = s.judge("alice", create=True, seed=21)
    plan = s.plan(j)
    assert len(plan) == 8 and [st_.repeat for st_ in plan] == [False] * 6 + [True] * 2
    reps = [st_.item.series_id for st_ in plan[6:]]
    assert set(reps) <= {it.series_id for it in s.items()} and len(set(reps)) == 2
    for step in plan[:6]:
        s.record(j, step.item.series_id, steady=True, onset=100)
    assert s.resume_position(j) == 6 and s.progress()["alice"] == (6, 8)
    s.record(j, reps[0], steady=True, onset=110, repeat=True)
    s.record(j, reps[1], steady=False, repeat=True)
    assert s.resume_position(j) == 8 and s.progress()["alice"] == (8, 8)
    assert s.label(j, reps[0]).onset == 100 and s.label(j, reps[0], repeat=True).onset == 110
    assert s.intra_rater(j) == {"n": 2.0, "binary_agreement": 0.5, "mean_abs_onset_diff": 10.0,
                                "mean_onset_drift": 10.0}
    outside = next(it.series_id for it in s.items() if it.series_id not in reps)
    with pytest.raises(InputError, match="calibration subset"):
        s.record(j, outside, steady=True, repeat=True)
    assert [g.reference_index for g in s.aggregate() if g.series_id == reps[0]] == [100]


def test_out_of_date_schema_is_a_clear_error(tmp_path):
    path = tmp_path / "old.sqlite"
    st.Store(path).close()
    import sqlite3
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE events DROP COLUMN repeat")
    con.commit()
    con.close()
    with pytest.raises(RecoverableError, match="lacks column"):
        st.Store(path)


@pytest.mark.parametrize("kind", ["read", "write"])
def test_any_database_library_error_reaches_callers_as_a_store_error(session, monkeypatch, kind):
    # A driver-level failure that is not an OperationalError (an InterfaceError: the connection
    # object is unusable) must still reach the GUI as segview's StoreError, never as SQLAlchemy's
    # own exception type, which callers outside the store cannot name (pyproject's contracts).
    import sqlite3

    from sqlalchemy.engine import Connection
    from sqlalchemy.exc import InterfaceError

    from segview.core.errors import StoreError

    judge = session.judge("ann", create=True)

    def broken(self, *args, **kwargs):
        raise InterfaceError("SELECT", {}, sqlite3.InterfaceError("connection is unusable"))

    monkeypatch.setattr(Connection, "execute", broken)
    with pytest.raises(StoreError, match="connection is unusable") as info:
        if kind == "read":
            session.labels(judge)
        else:
            session.record(judge, session.items()[0].series_id, steady=False)
    assert isinstance(info.value, RecoverableError)


def test_a_uniqueness_conflict_is_a_store_conflict_error(store):
    from segview.core.errors import StoreConflictError

    with pytest.raises(StoreConflictError):
        with store.write() as conn:
            conn.execute(insert(st.meta_table).values(key="schema_version", value="x"))
