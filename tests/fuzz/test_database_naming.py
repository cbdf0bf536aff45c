"""Issue 30, items 1, 3 and 9: every way of naming the annotation database means the same database,
and no message shows its password.

* item 1: ``$SEGVIEW_DB`` holding a URL is that server, never a local file named like the URL;
* item 3: argparse's own errors, ``-vv`` and a password holding an unencoded ``@`` never show it;
* item 9: a file path with ``?``, ``#`` or ``%XX`` is that file, literally (two such names are
  two databases).

Expected values come from the rules in ``segview/core/annotation/location.py``'s docstring (and
RFC 3986 for what a URL's host is), never from running the resolver.
"""
from __future__ import annotations

import io
import logging
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy.engine import make_url

from segview.cli.main import main
from segview.core.annotation.location import DatabaseNameError, resolve_db
from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store
from segview.core.model import Series
from segview.core.secrets import MaskingFilter, mask_secrets

PW = "Pw9secret"
# nothing listens on port 1: every connection is refused at once
DEAD = f"postgresql://judge:{PW}@127.0.0.1:1/seg"


def _run(argv: list[str], capsys) -> tuple[int, str]:
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse's own errors
        rc = exc.code
    cap = capsys.readouterr()
    return rc, cap.out + cap.err


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# -- item 1: $SEGVIEW_DB with a URL ----------------------------------------------------------------

@pytest.mark.parametrize("url", [DEAD, DEAD.replace("postgresql://", "postgresql+psycopg://"),
                                 DEAD.replace("postgresql://", "postgres://")])
@pytest.mark.parametrize("argv", [["session", "list"], ["session", "progress", "x"]])
def test_segview_db_url_is_the_server_not_a_file(tmp_path, monkeypatch, capsys, url, argv):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEGVIEW_DB", url)
    rc, text = _run(argv, capsys)
    assert rc == 2  # the server does not answer: an error, not an empty local database
    assert _files(tmp_path) == []  # no ./postgresql:/... file or folder
    assert PW not in text
    assert "127.0.0.1:1" in text and "$SEGVIEW_DB" in text


def test_segview_db_file_and_flag_name_the_same_database(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEGVIEW_DB", "shared.sqlite")
    with Store(tmp_path / "shared.sqlite") as store:
        AnnotationSession.create(store, "one", [Series(np.arange(10.0), id="a")])
    rc, text = _run(["session", "list"], capsys)
    assert rc == 0 and "one\t" in text
    monkeypatch.delenv("SEGVIEW_DB")
    rc, text2 = _run(["session", "list", "--db-url", str(tmp_path / "shared.sqlite")], capsys)
    assert rc == 0 and "one\t" in text2


def test_resolver_reads_segview_db_by_the_same_rules():
    env = {"SEGVIEW_DB": DEAD}
    loc = resolve_db(None, environ=env)
    assert loc.path is None and loc.source == "$SEGVIEW_DB"
    url = make_url(loc.url)
    assert (url.drivername, url.host, url.port, url.database) == ("postgresql+psycopg",
                                                                  "127.0.0.1", 1, "seg")
    assert PW not in loc.display


# -- item 9: file names are literal ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["q?x.sqlite", "a%20b.sqlite", "h#1.sqlite", "p%3Fq.sqlite",
                                  "semi;colon.sqlite", "sp ace.sqlite", "ünï.sqlite"])
def test_a_file_name_is_that_file(tmp_path, monkeypatch, capsys, name):
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "d.json"
    data.write_text("[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]")
    rc, text = _run(["session", "create", "s", str(data), "--db", name], capsys)
    assert rc == 0, text
    assert (tmp_path / name).is_file()
    assert [f for f in _files(tmp_path) if "sqlite" in f and not f.startswith(name)] == []


def test_two_names_that_differ_after_a_question_mark_are_two_databases(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with Store("q?x.sqlite") as a:
        AnnotationSession.create(a, "in-x", [Series(np.arange(10.0), id="a")])
    with Store("q?y.sqlite") as b:
        assert b.session_names() == []
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".sqlite") == [
        "q?x.sqlite", "q?y.sqlite"]


def test_a_sqlite_url_with_a_query_is_refused_not_truncated(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DatabaseNameError, match=r"after '\?'"):
        resolve_db("sqlite:///q?x.sqlite")
    rc, text = _run(["session", "list", "--db", "sqlite:///q?x.sqlite"], capsys)
    assert rc == 2 and "not supported" in text
    assert _files(tmp_path) == []


def test_sqlite_url_and_path_name_the_same_file(tmp_path):
    assert resolve_db(f"sqlite:///{tmp_path}/a b.sqlite").path == tmp_path / "a b.sqlite"
    assert resolve_db(f"sqlite:///{tmp_path}/a%20b.sqlite").path == tmp_path / "a b.sqlite"
    assert resolve_db(str(tmp_path / "a%20b.sqlite")).path == tmp_path / "a%20b.sqlite"
    assert resolve_db(tmp_path / "x://y").path == tmp_path / "x:" / "y"  # a Path is a file


@pytest.mark.parametrize("text", ["postgresql:/judge:" + PW + "@h/db", "postgres:judge@h/db",
                                  "sqlite:relative.db"])
def test_a_url_missing_its_slashes_is_refused_not_made_a_file(tmp_path, monkeypatch, capsys, text):
    monkeypatch.chdir(tmp_path)
    rc, out = _run(["session", "list", "--db", text], capsys)
    assert rc == 2 and "//" in out and PW not in out
    assert _files(tmp_path) == []


# -- item 3: passwords never echoed ---------------------------------------------------------------

ARGV_LEAKS = [
    ["session", "list", DEAD],                               # a URL as a positional argument
    ["session", "list", "--db-uri", DEAD],                   # a misspelt flag
    ["session", "list", f"--nope={DEAD}"],
    ["session", "create", "--protocol", DEAD],               # invalid choice (quoted by argparse)
    ["session", "progress", "--json", DEAD, DEAD],
    ["annotate", "--protocol", DEAD],
    [DEAD],                                                  # taken for the gui's file argument
    ["-vv", "session", "list", "--db", DEAD],
    ["-v", "-v", "session", "list", "--db-url", DEAD],
    ["session", "list", "--db", DEAD.replace(PW, "p@ss@" + PW)],   # unencoded "@"s
    ["session", "list", "--db", DEAD.replace(PW, PW + "/x")],      # unencoded "/"
]


@pytest.mark.parametrize("argv", ARGV_LEAKS, ids=range(len(ARGV_LEAKS)))
def test_no_message_shows_the_password(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, text = _run(argv, capsys)
    assert rc != 0
    assert PW not in text and "p@ss" not in text and "ss@" not in text, text


def test_double_v_is_a_verbosity_count(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, text = _run(["-vv", "session", "list", "--db", str(tmp_path / "v.sqlite")], capsys)
    assert rc == 0, text
    assert "unrecognized" not in text


@pytest.mark.parametrize("password", ["p@ss", "p@ss@word", "@lead", "trail@", "a:b@c", "x/y@z",
                                      "%40enc"])
def test_password_with_reserved_characters_is_fully_masked(password):
    url = f"postgresql://judge:{password}@db.example:5432/seg"
    masked = mask_secrets(url)
    assert masked == "postgresql://judge:***@db.example:5432/seg"
    assert mask_secrets(f"error: 'connect {url}' failed") == \
        "error: 'connect postgresql://judge:***@db.example:5432/seg' failed"


@pytest.mark.parametrize("password", ["p@ss", "p@ss@word", "trail@"])
def test_unencoded_at_belongs_to_the_password_when_connecting(password):
    loc = resolve_db(f"postgresql://judge:{password}@db.example:5432/seg")
    url = make_url(loc.url)
    assert (url.username, url.password, url.host, url.port) == ("judge", password, "db.example",
                                                                5432)
    assert password not in loc.display


def test_log_records_are_masked():
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.addFilter(MaskingFilter())
    log = logging.getLogger("segview.test.masking")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("connecting to %s", DEAD)
        try:
            raise RuntimeError(f"cannot reach {DEAD}")
        except RuntimeError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)
    assert PW not in buf.getvalue() and "judge:***@" in buf.getvalue()


def test_store_shows_only_the_masked_url(capsys):
    from segview.core.errors import RecoverableError

    with pytest.raises(RecoverableError) as info:
        Store(DEAD.replace(PW, "p@ss@" + PW))
    assert PW not in str(info.value) and "judge:***@127.0.0.1:1" in str(info.value)
