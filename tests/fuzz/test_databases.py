"""Issue 17, items 5 and 8: sessions and annotation databases that are damaged, foreign, old,
read-only or interrupted give clear errors and never a zombie, a traceback or a touched file."""
from __future__ import annotations

import os
import sqlite3

import numpy as np
import pytest
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from segview.cli.main import main
from segview.core.annotation import store as st
from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store
from segview.core.errors import InputError, RecoverableError
from segview.core.model import Series

SERIES = [Series(np.r_[np.ones(20), np.ones(20) * 3], id=f"s{k}") for k in range(4)]


def _tables(path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


# -- item 5: a zombie session -----------------------------------------------------------------

def test_interrupted_session_creation_leaves_no_zombie(tmp_path, monkeypatch):
    db = tmp_path / "a.sqlite"
    orig = Connection.execute

    def disk_full_on_items(self, stmt, *args, **kwargs):
        if getattr(stmt, "table", None) is st.items and getattr(stmt, "is_insert", False):
            raise OperationalError("INSERT INTO items", {}, sqlite3.OperationalError(
                "database or disk is full"))
        return orig(self, stmt, *args, **kwargs)

    with Store(db) as store:
        monkeypatch.setattr(Connection, "execute", disk_full_on_items)
        with pytest.raises(RecoverableError, match="disk is full"):
            AnnotationSession.create(store, "pilot", SERIES)
        monkeypatch.setattr(Connection, "execute", orig)
        assert store.session_names() == []  # nothing half-made
        s = AnnotationSession.create(store, "pilot", SERIES)  # the name is free again
        assert len(s.items()) == 4


def test_old_zombie_is_reported_and_can_be_deleted(tmp_path, capsys):
    db = tmp_path / "z.sqlite"
    with Store(db) as store:  # what an interrupted create of an older segview left behind
        store.insert_session("zombie", "steady_state", {}, "0.0")
    with Store(db) as store, pytest.raises(InputError, match="session delete zombie"):
        AnnotationSession.open(store, "zombie")  # what annotate and the GUI dialog call
    assert main(["session", "progress", "zombie", "--db", str(db)]) == 2
    assert "session delete zombie" in capsys.readouterr().err
    assert main(["session", "list", "--db", str(db)]) == 0
    assert "unusable" in capsys.readouterr().out
    assert main(["session", "delete", "zombie", "--db", str(db)]) == 0
    with Store(db) as store:
        assert store.session_names() == []


def test_sessions_can_be_renamed_and_deleted_but_not_silently_with_judgments(tmp_path, capsys):
    db = tmp_path / "r.sqlite"
    with Store(db) as store:
        s = AnnotationSession.create(store, "one", SERIES)
        s.record(s.judge("alice", create=True), "s0", steady=True, onset=20)
        AnnotationSession.create(store, "two", SERIES)
    assert main(["session", "rename", "one", "two", "--db", str(db)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["session", "rename", "one", "three", "--db", str(db)]) == 0
    assert main(["session", "delete", "three", "--db", str(db)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["session", "delete", "three", "--force", "--db", str(db)]) == 0
    with Store(db) as store:
        assert store.session_names() == ["two"]
        assert store.session_history(int(store.session_row("two").id)) == []


# -- item 8: damaged, foreign, future and read-only databases ----------------------------------

def test_foreign_database_is_refused_untouched(tmp_path, capsys):
    db = tmp_path / "other_app.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
    before = db.read_bytes()
    with pytest.raises(RecoverableError, match="not a segview annotation database.*customers"):
        Store(db)
    assert main(["session", "list", "--db", str(db)]) == 2
    assert "customers" in capsys.readouterr().err
    assert _tables(db) == {"customers"} and db.read_bytes() == before


def test_random_bytes_give_a_clear_error(tmp_path, capsys):
    db = tmp_path / "noise.sqlite"
    db.write_bytes(np.random.default_rng(1).bytes(8192))
    for argv in (["session", "list"], ["session", "progress", "x"], ["aggregate-never"]):
        if argv[0] == "aggregate-never":
            continue
        assert main([*argv, "--db", str(db)]) == 2
        err = capsys.readouterr().err
        assert "noise.sqlite" in err and "Traceback" not in err


def test_damaged_pages_inside_a_real_database(tmp_path, capsys):
    db = tmp_path / "d.sqlite"
    with Store(db) as store:
        AnnotationSession.create(store, "s", [Series(np.arange(3000.0), id=f"x{k}")
                                              for k in range(20)])
    raw = bytearray(db.read_bytes())
    raw[4096:len(raw) - 4096] = np.random.default_rng(2).bytes(len(raw) - 8192)
    db.write_bytes(bytes(raw))
    for argv in (["session", "list"], ["session", "progress", "s"], ["session", "export-judgments",
                                                                      "s", "--out",
                                                                      str(tmp_path / "j.csv")]):
        rc = main([*argv, "--db", str(db)])
        err = capsys.readouterr().err
        assert rc == 2 and "Traceback" not in err, (argv, err)


def test_non_numeric_and_future_schema_versions(tmp_path):
    for value, match in (("abc", "not a number"), ("99", "newer than this segview")):
        db = tmp_path / f"v{value}.sqlite"
        Store(db).close()
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE segview_meta SET value=? WHERE key='schema_version'", (value,))
        with pytest.raises(RecoverableError, match=match):
            Store(db)


def test_bad_json_in_one_event(tmp_path, capsys):
    db = tmp_path / "j.sqlite"
    with Store(db) as store:
        s = AnnotationSession.create(store, "cp", SERIES, protocol="change_points")
        s.record(s.judge("alice", create=True), "s0", change_points=[20])
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET change_points='[20,' WHERE kind='label'")
    assert main(["session", "progress", "cp", "--db", str(db)]) == 2
    assert "malformed change points" in capsys.readouterr().err


def test_read_only_database_can_be_read_not_written(tmp_path, monkeypatch):
    db = tmp_path / "ro.sqlite"
    with Store(db) as store:
        s = AnnotationSession.create(store, "s", SERIES)
        s.record(s.judge("alice", create=True), "s1", steady=True, onset=5)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **k: False if mode == os.W_OK
                        else real_access(p, mode, **k))  # root may write anything: pretend not
    with Store(db) as store:
        assert store.read_only and store.session_names() == ["s"]
        s = AnnotationSession.open(store, "s")
        assert s.labels(s.judge("alice"))["s1"].onset == 5
        with pytest.raises(RecoverableError, match="read-only"):
            s.record(s.judge("alice"), "s2", steady=False)


def test_migrations_run_from_every_earlier_version(tmp_path):
    """Every version below the current one has a migration step; a database as version 1 made it
    (no item_dimensions/assignments tables, version stamped 1) keeps its judgments and opens."""
    assert all(v in st.MIGRATIONS for v in range(1, st.SCHEMA_VERSION))
    db = tmp_path / "v1.sqlite"
    with Store(db) as store:
        s = AnnotationSession.create(store, "old", SERIES)
        s.record(s.judge("alice", create=True), "s2", steady=True, onset=7)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE item_dimensions")
        conn.execute("DROP TABLE assignments")
        conn.execute("UPDATE segview_meta SET value='1' WHERE key='schema_version'")
    with Store(db) as store:
        s = AnnotationSession.open(store, "old")
        assert s.labels(s.judge("alice"))["s2"].onset == 7
        multi = Series(np.ones((30, 2)), id="m", dims=("a", "b"))
        assert len(AnnotationSession.create(store, "new", [multi]).items()) == 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM segview_meta").fetchone()[0] == str(st.SCHEMA_VERSION)
        assert {"item_dimensions", "assignments"} <= {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}


def test_creation_needs_series_and_unique_ids(tmp_path):
    with Store(tmp_path / "u.sqlite") as store:
        with pytest.raises(InputError, match="at least one series"):
            AnnotationSession.create(store, "e", [])
        assert store.session_names() == []
