"""Issue 30, item 11 in the core: one judge in two windows (or processes, or machines).

A write based on a stale view (``expect`` = the label the window shows) is refused with the newer
label, nothing written; undo with ``mine`` touches only the caller's own actions still in effect.
The history stays append-only. SQLite always; PostgreSQL when ``SEGVIEW_TEST_PG_URL`` is set."""
from __future__ import annotations

import os
import uuid

import numpy as np
import pytest

from segview.core.annotation import store as st
from segview.core.annotation.session import AnnotationSession
from segview.core.errors import RecoverableError, StaleLabelError
from segview.core.model import Series


@pytest.fixture(params=["sqlite", "postgresql"])
def two(request, tmp_path):
    """Two stores (two windows' connections) on one database, and the session in each."""
    if request.param == "sqlite":
        url = str(tmp_path / "ann.sqlite")
    else:
        url = os.environ.get("SEGVIEW_TEST_PG_URL", "")
        if not url:
            pytest.skip("SEGVIEW_TEST_PG_URL is not set")
        try:
            st.Store(url).close()
        except RecoverableError as err:
            pytest.skip(f"PostgreSQL not reachable: {err}")
    name = f"opt-{uuid.uuid4().hex[:8]}"
    a_store, b_store = st.Store(url), st.Store(url)
    a = AnnotationSession.create(a_store, name, [Series(np.arange(60.0) + k, id=f"s{k}")
                                                 for k in range(3)])
    b = AnnotationSession.open(b_store, name)
    yield a, b, a.judge("alice", create=True), b.judge("alice")
    a_store.close()
    b_store.close()


def _n(s: AnnotationSession) -> int:
    return len(s.history())


def test_stale_record_is_refused_with_the_newer_label(two):
    a, b, ja, jb = two
    shown_b = b.label(jb, "s0")  # b shows "not labelled"
    e1 = a.record(ja, "s0", steady=True, onset=10, expect=None)
    n = _n(a)
    with pytest.raises(StaleLabelError) as info:
        b.record(jb, "s0", steady=True, onset=20, expect=shown_b)
    assert info.value.series_id == "s0"
    assert info.value.current.event_id == e1 and info.value.current.onset == 10
    assert _n(a) == n and a.label(ja, "s0").onset == 10  # nothing written
    e2 = b.record(jb, "s0", steady=True, onset=20, expect=info.value.current.event_id)
    assert a.label(ja, "s0").event_id == e2  # after seeing it, b may replace it


def test_stale_clear_and_stale_relabel_after_an_undo(two):
    a, b, ja, jb = two
    e1 = a.record(ja, "s1", steady=True, onset=5, expect=None)
    assert b.label(jb, "s1").event_id == e1  # b looks: 5
    assert a.undo(ja, mine={e1}, shown={"s1": e1}) == "s1"  # a takes it back
    with pytest.raises(StaleLabelError) as info:
        b.clear(jb, "s1", expect=e1)  # b would clear a label that is no longer there
    assert info.value.current is None
    with pytest.raises(StaleLabelError):
        b.record(jb, "s1", steady=False, expect=e1)


def test_undo_touches_only_the_callers_own_actions(two):
    a, b, ja, jb = two
    mine_a = {a.record(ja, "s0", steady=True, onset=3, expect=None)}
    mine_b = {b.record(jb, "s1", steady=True, onset=4, expect=None)}  # the judge's latest
    assert a.undo(ja, mine=mine_a, shown={"s0": next(iter(mine_a))}) == "s0"
    assert a.label(ja, "s0") is None and a.label(ja, "s1").onset == 4
    assert a.undo(ja, mine=mine_a, shown={}) is None  # nothing more of a's
    assert b.label(jb, "s1").event_id in mine_b
    assert a.redo(ja, mine=mine_a, shown={}) == "s0" and a.label(ja, "s0").onset == 3
    kinds = [e.kind for e in a.history(ja)]
    assert kinds == ["label", "label", "undo", "redo"]  # append-only


def test_undo_skips_an_own_action_the_other_window_replaced(two):
    a, b, ja, jb = two
    e1 = a.record(ja, "s2", steady=True, onset=7, expect=None)
    e2 = b.record(jb, "s2", steady=True, onset=9, expect=e1)
    assert a.undo(ja, mine={e1}, shown={"s2": e1}) is None
    assert a.label(ja, "s2").event_id == e2


def test_undo_refused_when_the_callers_view_is_stale(two):
    a, b, ja, jb = two
    e0 = b.record(jb, "s0", steady=True, onset=1, expect=None)
    e1 = a.record(ja, "s0", steady=True, onset=2, expect=e0)
    assert b.undo(jb, mine={e0}, shown={"s0": e0}) is None  # b's e0 is shadowed by e1: skipped
    with pytest.raises(StaleLabelError):  # a caller whose screen still shows e0 for s0
        a.undo(ja, mine={e1}, shown={"s0": e0})
    assert a.label(ja, "s0").event_id == e1


def test_library_calls_without_expect_behave_as_before(two):
    a, b, ja, jb = two
    a.record(ja, "s0", steady=True, onset=1)
    b.record(jb, "s0", steady=True, onset=2)  # no expect: last writer wins, as before
    assert a.undo(ja) == "s0" and a.label(ja, "s0").onset == 1
