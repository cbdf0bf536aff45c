"""Issue 30, item 2: a store whose SQLite file is deleted, moved away or replaced while it is open
refuses every write with a named error (the file named, "NOT saved"), instead of accepting
judgments into an unlinked file that vanishes on close."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store
from segview.core.errors import DatabaseFileGoneError, RecoverableError
from segview.core.model import Series


def _open(tmp_path, name="ann.sqlite"):
    store = Store(tmp_path / name)
    s = AnnotationSession.create(store, "s", [Series(np.arange(100.0) + k, id=f"a{k}")
                                              for k in range(3)])
    judge = s.judge("j", create=True)
    s.record(judge, "a0", steady=True, onset=10)  # a confirmed judgment before the deletion
    return store, s, judge


def _gone(s, judge):
    return [lambda: s.record(judge, "a1", steady=True, onset=5),
            lambda: s.clear(judge, "a0"),
            lambda: s.undo(judge),
            lambda: s.visit(judge, "a2"),
            lambda: s.judge("new", create=True)]


@pytest.mark.parametrize("action", range(5))
def test_deleted_file_refuses_every_write(tmp_path, action):
    store, s, judge = _open(tmp_path)
    path = tmp_path / "ann.sqlite"
    os.remove(path)
    with pytest.raises(DatabaseFileGoneError) as info:
        _gone(s, judge)[action]()
    text = str(info.value)
    assert str(path) in text and "NOT saved" in text and "deleted" in text
    assert isinstance(info.value, RecoverableError)  # the CLI and the GUI report it and go on
    assert not path.exists()  # nothing re-created an empty file there either
    store.close()


def test_the_confirmed_judgments_of_a_deleted_file_are_rescued(tmp_path):
    store, s, judge = _open(tmp_path)
    s.record(judge, "a2", steady=False)
    os.remove(tmp_path / "ann.sqlite")
    with pytest.raises(DatabaseFileGoneError) as info:
        s.record(judge, "a1", steady=True, onset=5)
    store.close()
    copies = sorted(tmp_path.glob("ann.sqlite.rescued-*.sqlite"))
    assert len(copies) == 1 and str(copies[0]) in str(info.value)
    with Store(copies[0]) as rescued:  # every judgment confirmed before the deletion, not the refused
        s2 = AnnotationSession.open(rescued, "s")
        got = {k: (v.steady, v.onset) for k, v in s2.labels(s2.judge("j")).items()}
    assert got == {"a0": (True, 10), "a2": (False, None)}


def test_replaced_file_is_refused_and_the_replacement_untouched(tmp_path):
    store, s, judge = _open(tmp_path)
    path = tmp_path / "ann.sqlite"
    other, s2, j2 = _open(tmp_path, "other.sqlite")
    other.close()
    for suffix in ("-wal", "-shm"):
        if os.path.exists(str(path) + suffix):
            os.remove(str(path) + suffix)
    os.replace(tmp_path / "other.sqlite", path)  # e.g. a backup restored over it
    before = path.read_bytes()
    with pytest.raises(DatabaseFileGoneError, match="replaced"):
        s.record(judge, "a1", steady=False)
    assert path.read_bytes() == before
    store.close()
    with Store(path) as again:  # the file now at the path holds only its own judgment
        s3 = AnnotationSession.open(again, "s")
        assert set(s3.labels(s3.judge("j"))) == {"a0"}


def test_moved_file_is_refused_and_nothing_is_written_behind_the_judge(tmp_path):
    store, s, judge = _open(tmp_path)
    path = tmp_path / "ann.sqlite"
    shutil.move(str(path), str(tmp_path / "moved.sqlite"))
    with pytest.raises(DatabaseFileGoneError):
        s.record(judge, "a1", steady=True, onset=3)
    store.close()
    shutil.move(str(tmp_path / "moved.sqlite"), str(path))  # moved back beside its journal
    with Store(path) as back:
        s2 = AnnotationSession.open(back, "s")
        assert {k: v.onset for k, v in s2.labels(s2.judge("j")).items()} == {"a0": 10}


def test_writes_go_on_while_the_file_stays(tmp_path):
    store, s, judge = _open(tmp_path)
    os.utime(tmp_path / "ann.sqlite")  # touched, not replaced: still the same file
    assert s.record(judge, "a1", steady=True, onset=4) > 0
    store.close()


def test_a_new_connection_never_recreates_the_deleted_file(tmp_path):
    store, s, judge = _open(tmp_path)
    os.remove(tmp_path / "ann.sqlite")
    store.engine.pool.dispose()  # no open connection left: the next read must connect anew
    with pytest.raises(RecoverableError):
        s.labels(judge)
    assert not (tmp_path / "ann.sqlite").exists()
    store.close()
