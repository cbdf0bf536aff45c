"""Issue 30, item 12 (store side): a NUL character in a series id or name, a series id over 500
or a name over 200 characters is refused the same way by SQLite and PostgreSQL: an InputError
naming the item, raised before anything is written (SQLite used to accept them, PostgreSQL to
fail later with a driver error that named nothing).

PostgreSQL runs when ``SEGVIEW_TEST_PG_URL`` names a reachable server; otherwise only SQLite."""
from __future__ import annotations

import os
import uuid

import numpy as np
import pytest
from sqlalchemy import func, select

from segview.core.annotation import store as st
from segview.core.annotation.session import AnnotationSession
from segview.core.errors import InputError, RecoverableError
from segview.core.model import Series


def _pg_url() -> str:
    url = os.environ.get("SEGVIEW_TEST_PG_URL", "")
    if not url:
        pytest.skip("SEGVIEW_TEST_PG_URL is not set")
    try:
        st.Store(url).close()
    except RecoverableError as err:
        pytest.skip(f"PostgreSQL not reachable: {err}")
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    url = tmp_path / "ann.sqlite" if request.param == "sqlite" else _pg_url()
    s = st.Store(url)
    yield s
    s.close()


def _counts(store) -> tuple[int, ...]:
    with store.read() as conn:
        return tuple(conn.execute(select(func.count()).select_from(t)).scalar()
                     for t in (st.sessions, st.items, st.judges, st.events))


def _uniq(prefix="t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# (series ids, session name, expected words in the message): the limits come from the schema's
# column widths (items.series_id VARCHAR(500), sessions.name / judges.name VARCHAR(200))
CASES = {
    "nul-series-id": (["ok", "bad\x00id"], None, ["series id", "bad\\x00id", "NUL"]),
    "long-series-id": (["ok", "x" * 501], None, ["series id", "501 characters", "500"]),
    "nul-session-name": (["ok"], "sess\x00ion", ["session name", "NUL"]),
    "long-session-name": (["ok"], "n" * 201, ["session name", "201 characters", "200"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_text_in_a_new_session_is_refused_before_writing(store, case):
    ids, name, words = CASES[case]
    name = name or _uniq()
    before = _counts(store)
    series = [Series(np.arange(20.0) + k, id=sid) for k, sid in enumerate(ids)]
    with pytest.raises(InputError) as info:
        AnnotationSession.create(store, name, series)
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    assert _counts(store) == before


def test_limits_themselves_are_accepted(store):
    name = (_uniq("n") + "n" * 200)[:200]  # exactly the limit
    assert len(name) == 200
    s = AnnotationSession.create(store, name, [Series(np.arange(20.0), id="x" * 500)])
    j = s.judge("j" * 200, create=True)
    s.record(j, "x" * 500, steady=True, onset=3, note="fine")
    assert s.label(j, "x" * 500).onset == 3


@pytest.mark.parametrize("judge,words", [("ju\x00dge", ["judge name", "NUL"]),
                                         ("j" * 201, ["judge name", "201 characters"])])
def test_bad_judge_name_is_refused_before_writing(store, judge, words):
    s = AnnotationSession.create(store, _uniq(), [Series(np.arange(20.0), id="a")])
    before = _counts(store)
    with pytest.raises(InputError) as info:
        s.judge(judge, create=True)
    assert all(w in str(info.value) for w in words), str(info.value)
    assert _counts(store) == before


def test_nul_in_a_note_or_a_rename_is_refused(store):
    s = AnnotationSession.create(store, _uniq(), [Series(np.arange(20.0), id="a")])
    j = s.judge("j", create=True)
    before = _counts(store)
    with pytest.raises(InputError, match="note of series 'a'"):
        s.record(j, "a", steady=True, onset=1, note="x\x00y")
    with pytest.raises(InputError, match="note of series 'a'"):
        s.record_many([(j, "a", {"steady": True, "onset": 1, "note": "\x00"})])
    with pytest.raises(InputError, match="session name"):
        store.rename_session(s.name, "r" * 201)
    assert _counts(store) == before


def test_cli_create_refuses_a_bad_judge_name_before_the_session_exists(tmp_path, capsys):
    from segview.cli.main import main

    data = tmp_path / "d.json"
    data.write_text("[[1, 2, 3, 4, 5, 6, 7, 8]]")
    db = tmp_path / "c.sqlite"
    assert main(["session", "create", "s", str(data), "--db", str(db), "--judge", "ok",
                 "--judge", "j" * 201]) == 2
    assert "judge name" in capsys.readouterr().err
    with st.Store(db) as store:
        assert store.session_names() == []
