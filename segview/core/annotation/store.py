"""Annotation database (SQLAlchemy Core): an SQLite file by default, or a PostgreSQL URL.

Tables (schema version in ``meta``):

* ``sessions``: name (unique), protocol (``steady_state`` | ``change_points``), aggregation
  settings and flags (JSON), creation time.
* ``items``: a session's series: series id, content hash (labels stay attached to the right data),
  position, length, source, and optionally the values themselves (``float64`` bytes), so that judges
  on other machines annotate the same data.
* ``judges``: name, role (``judge`` | ``adjudicator``), the seed of their shuffled order.
* ``events``: the append-only history. Every action a judge takes is one row, committed at once:
  ``label`` (steady / onset or change points, confidence, note), ``clear`` (back to "not
  annotated"), each with ``repeat`` = 1 when it concerns a hidden calibration repeat,
  ``undo`` / ``redo`` (``target`` = the action reverted or re-applied), and ``visit`` (the judge
  opened a series: resume point and audit; not an action, so undo skips it). Nothing is updated or
  deleted; a judge's current labels are the replay of their events (:func:`replay`).
* ``item_dimensions``: the dimension names of a multivariate item (values stored row-major).
* ``assignments``: which items a judge is assigned, in their order (sessions made with ``k`` judges
  per series); a judge without rows annotates every item.

Schema versions: 1 = the first release; 2 adds ``item_dimensions`` and ``assignments``. An older
database is migrated when it is opened (:data:`MIGRATIONS`, one transaction).

Naming: every database name (``--db``, ``$SEGVIEW_DB``, the GUI's dialog, ``Store(db)``) is
resolved by :func:`~.location.resolve_db` (URLs by their scheme, file paths literally).

Safety: before each write (and again before its commit) a store on an SQLite file checks that the
file at its path is still the one it opened (device and inode); a file deleted, moved away or
replaced meanwhile is refused (:class:`~segview.core.errors.DatabaseFileGoneError`) and what the
open connection still holds is copied beside it. Text that one backend cannot store (a NUL, a value
wider than its column) is refused by both before anything is written (:func:`check_text`).

Concurrency: SQLite runs in WAL mode with a busy timeout and every write transaction starts with
``BEGIN IMMEDIATE`` (no lock-upgrade deadlocks); on PostgreSQL each action locks its judge's row
(``SELECT ... FOR UPDATE``) so one judge's undo stack stays linear across machines.
"""
from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (Boolean, Column, Float, ForeignKey, Integer, LargeBinary, MetaData, String,
                        Table, Text, UniqueConstraint, create_engine, delete, event, insert, select,
                        text, update)
from sqlalchemy.engine import Connection, CursorResult, Engine
from sqlalchemy.exc import ArgumentError, IntegrityError, SQLAlchemyError
from sqlalchemy.pool import QueuePool

from ..errors import (DatabaseFileGoneError, InputError, RecoverableError, StoreConflictError,
                      StoreError)
from .location import DEFAULT_FILENAME as DEFAULT_FILENAME  # re-exported: the store's defaults
from .location import DatabaseLocation, resolve_db
from .location import default_db_path as default_db_path  # re-exported

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
PROTOCOLS = ("steady_state", "change_points")
ROLES = ("judge", "adjudicator")
EVENT_KINDS = ("label", "clear", "undo", "redo", "visit")
BUSY_TIMEOUT_S = 60.0
# the widths of the text columns; PostgreSQL refuses longer values (SQLite would accept them), so
# both backends check them first, with the same named error (:func:`check_text`)
MAX_SERIES_ID = 500
MAX_NAME = 200

metadata = MetaData()

meta_table = Table("segview_meta", metadata,
                   Column("key", String(64), primary_key=True),
                   Column("value", Text, nullable=False))

sessions = Table(
    "sessions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(MAX_NAME), nullable=False, unique=True),
    Column("protocol", String(32), nullable=False),
    Column("settings", Text, nullable=False, default="{}"),
    Column("created_at", Float, nullable=False),
    Column("tool_version", String(40), nullable=False, default=""),
)

items = Table(
    "items", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("session_id", Integer, ForeignKey("sessions.id"), nullable=False, index=True),
    Column("series_id", String(MAX_SERIES_ID), nullable=False),
    Column("content_hash", String(64), nullable=False),
    Column("position", Integer, nullable=False),
    Column("n_samples", Integer, nullable=False),
    Column("source", Text, nullable=False, default=""),
    Column("values", LargeBinary, nullable=True),
    Column("x_values", LargeBinary, nullable=True),
    UniqueConstraint("session_id", "series_id", name="uq_item_series"),
)

judges = Table(
    "judges", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("session_id", Integer, ForeignKey("sessions.id"), nullable=False, index=True),
    Column("name", String(MAX_NAME), nullable=False),
    Column("role", String(20), nullable=False, default="judge"),
    Column("seed", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("session_id", "name", name="uq_judge_name"),
)

events = Table(
    "events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("session_id", Integer, ForeignKey("sessions.id"), nullable=False, index=True),
    Column("judge_id", Integer, ForeignKey("judges.id"), nullable=False, index=True),
    Column("item_id", Integer, ForeignKey("items.id"), nullable=True),
    Column("kind", String(10), nullable=False),
    Column("repeat", Integer, nullable=False, default=0),
    Column("target", Integer, nullable=True),
    Column("steady", Boolean, nullable=True),
    Column("onset", Integer, nullable=True),
    Column("change_points", Text, nullable=True),
    Column("confidence", Float, nullable=True),
    Column("note", Text, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("tool_version", String(40), nullable=False, default=""),
)


item_dimensions = Table(
    "item_dimensions", metadata,
    Column("item_id", Integer, ForeignKey("items.id"), primary_key=True),
    Column("names", Text, nullable=False),
)

assignments = Table(
    "assignments", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("session_id", Integer, ForeignKey("sessions.id"), nullable=False, index=True),
    Column("judge_id", Integer, ForeignKey("judges.id"), nullable=False, index=True),
    Column("item_id", Integer, ForeignKey("items.id"), nullable=False),
    Column("position", Integer, nullable=False),
    UniqueConstraint("judge_id", "item_id", name="uq_assignment"),
)


def normalise_url(db: str | os.PathLike[str] | None) -> str:
    """A database URL from a URL, a file path or None (the default file): :func:`resolve_db`'s
    URL. For a file the URL is for messages; :class:`Store` opens the file by its literal path."""
    return resolve_db(db).url


def _sqlite_engine(path: Path | None, read_only: bool = False,
                   may_create: Any = lambda: True) -> Engine:
    """An engine on the SQLite file ``path`` (None: in memory). The file is opened by its literal
    path (never re-parsed as a URL, so ``?`` and ``%`` in its name stay part of the name); once
    ``may_create()`` is False a new connection never creates a missing file (an empty database
    behind the judge's back), it fails instead."""
    if path is None:
        engine = create_engine("sqlite://", connect_args={"check_same_thread": False})
    elif read_only:  # a file we may not write: open it read-only so it can still be listed and read
        engine = create_engine("sqlite://", creator=lambda: _sqlite_ro_connect(str(path)),
                               poolclass=QueuePool)
    else:
        engine = create_engine("sqlite://",
                               creator=lambda: _sqlite_connect(str(path), may_create()),
                               poolclass=QueuePool)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _rec: Any) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("segview_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _sqlite_connect(path: str, create: bool = True) -> Any:
    import sqlite3

    if create:
        return sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    from urllib.parse import quote

    return sqlite3.connect(f"file:{quote(path)}?mode=rw", uri=True, timeout=BUSY_TIMEOUT_S,
                           check_same_thread=False)


def _sqlite_ro_connect(path: str) -> Any:
    import sqlite3
    from urllib.parse import quote

    return sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S,
                           check_same_thread=False)


def check_text(value: str | None, what: str, limit: int | None = None) -> None:
    """Refuse a text value that one of the backends cannot store, with the same named error on
    SQLite and PostgreSQL and before anything is written: a NUL character (PostgreSQL's text types
    cannot hold one) or more than ``limit`` characters (PostgreSQL enforces ``VARCHAR(limit)``,
    SQLite would not).

    Raises:
        InputError: naming ``what`` (e.g. ``series id 'a\\x00b'``) and the reason.
    """
    if value is None:
        return
    text_ = str(value)
    if "\x00" in text_:
        raise InputError(what, "holds a NUL character (\\x00), which the annotation database "
                               "cannot store (PostgreSQL refuses it); rename it")
    if limit is not None and len(text_) > limit:
        raise InputError(what, f"is {len(text_)} characters long; the annotation database keeps "
                               f"at most {limit}")


def shown(value: object, width: int = 60) -> str:
    """A name as it may appear in a message: escaped (NUL, control characters) and shortened."""
    r = repr(str(value))
    return r if len(r) <= width else r[: width - 4] + "...'"


@dataclass(frozen=True)
class Event:
    """One row of the history."""

    id: int
    judge_id: int
    item_id: int | None
    kind: str
    repeat: int
    target: int | None
    steady: bool | None
    onset: int | None
    change_points: tuple[int, ...] | None
    confidence: float | None
    note: str | None
    created_at: float
    tool_version: str


def _event(row: Any) -> Event:
    try:
        cps = None if row.change_points is None else tuple(int(c) for c in json.loads(row.change_points))
    except (ValueError, TypeError) as err:
        raise StoreError(f"annotation database: event {row.id} has malformed change points "
                         f"({err}); the database was damaged or edited by hand") from None
    return Event(row.id, row.judge_id, row.item_id, row.kind, int(row.repeat or 0), row.target,
                 None if row.steady is None else bool(row.steady), row.onset, cps,
                 row.confidence, row.note, row.created_at, row.tool_version)


def replay(history: list[Event]) -> tuple[dict[tuple[int, int], Event], list[int], list[int]]:
    """Replay one judge's events (id order).

    Returns:
        (current label per ``(item id, repeat)``, done stack of action ids, redo stack).
    """
    done: list[int] = []
    redo: list[int] = []
    by_id: dict[int, Event] = {}
    for ev in history:
        by_id[ev.id] = ev
        if ev.kind in ("label", "clear"):
            done.append(ev.id)
            redo.clear()
        elif ev.kind == "undo" and ev.target in done:
            done.remove(ev.target)
            redo.append(ev.target)
        elif ev.kind == "redo" and ev.target in redo:
            redo.remove(ev.target)
            done.append(ev.target)
    current: dict[tuple[int, int], Event] = {}
    for eid in done:
        ev = by_id[eid]
        if ev.item_id is not None:
            current[(ev.item_id, ev.repeat)] = ev
    current = {k: v for k, v in current.items() if v.kind == "label"}
    return current, done, redo


def _reason(err: BaseException) -> str:
    """The first line of what the database driver said (SQLAlchemy's wrapper adds its own)."""
    lines = str(getattr(err, "orig", None) or err).splitlines()
    return lines[0] if lines else type(err).__name__


def _new_id(result: CursorResult[Any]) -> int:
    """The primary key of the row an INSERT of one row created."""
    key = result.inserted_primary_key
    if key is None:   # SQLAlchemy gives it for every single-row INSERT
        raise StoreError("annotation database: an insert returned no row id")
    return int(key[0])


def _read_only_file(path: Path) -> bool:
    """An existing database file (or its folder, which SQLite's journal needs) we may not write."""
    return path.exists() and (not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK))


def _v1_to_v2(conn: Connection) -> None:
    """Version 2 adds the multivariate dimension names and the judge assignments (new tables)."""
    for table in (item_dimensions, assignments):
        table.create(conn, checkfirst=True)


# Schema migrations: MIGRATIONS[v] upgrades a database at version v to v + 1 inside the caller's
# write transaction.
MIGRATIONS: dict[int, Any] = {1: _v1_to_v2}


def migrate(conn: Connection, version: int) -> None:
    """Bring a database at ``version`` up to :data:`SCHEMA_VERSION` (one transaction)."""
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise StoreError(f"annotation schema version {version} cannot be migrated to "
                             f"{SCHEMA_VERSION} by this segview")
        step(conn)
        version += 1
        conn.execute(update(meta_table).where(meta_table.c.key == "schema_version")
                     .values(value=str(version)))


class Store:
    """A connection to an annotation database.

    Args:
        db: SQLAlchemy URL (``sqlite:///path``, ``postgresql://user:pw@host/db``), a file path
            (taken literally), a :class:`DatabaseLocation`, or None for ``$SEGVIEW_DB`` or the
            default embedded file; all resolved by :func:`~.location.resolve_db`.
        create: create the schema when the database is empty.
        source: how the database was named, for messages (``--db``, ``dialog``...).

    An SQLite file is watched: before each write the store checks that the file at its path is
    still the one it opened (device and inode); a file deleted, moved away or replaced meanwhile is
    refused with :class:`~segview.core.errors.DatabaseFileGoneError` (nothing written).

    Raises:
        StoreError: the database cannot be opened or has an unknown schema version.
    """

    def __init__(self, db: str | os.PathLike[str] | DatabaseLocation | None = None, *,
                 create: bool = True, source: str = "argument") -> None:
        self.location = db if isinstance(db, DatabaseLocation) else resolve_db(db, source=source)
        self.url = self.location.url
        self.path: Path | None = self.location.path
        self.read_only = False
        self._identity: tuple[int, int] | None = None
        self._rescued: Path | None = None
        engine: Engine | None = None
        try:
            if self.location.is_sqlite:
                if self.path is not None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self.read_only = _read_only_file(self.path)
                engine = _sqlite_engine(self.path, self.read_only, lambda: self._identity is None)
            else:
                engine = create_engine(self.url, pool_pre_ping=True)
            self.engine: Engine = engine   # a store always has its engine
            self._init_schema(create)
            self._identity = self._file_identity()
        except RecoverableError:
            if engine is not None:
                engine.dispose()
            raise
        except (ArgumentError, SQLAlchemyError, ImportError, OSError, ValueError) as err:
            if engine is not None:
                engine.dispose()
            hint = ("; PostgreSQL needs the driver: pip install 'psycopg[binary]'"
                    if isinstance(err, ImportError) and "psycopg" in str(err) else "")
            raise StoreError(f"annotation database {self.display_url}: cannot be opened "
                                   f"({err.__class__.__name__}: {str(err).splitlines()[0]}){hint}"
                                   ) from err

    @property
    def display_url(self) -> str:
        """Where the database is, as it may be shown: the file path or the URL without password."""
        return self.location.display

    @property
    def is_sqlite(self) -> bool:
        return self.location.is_sqlite

    def _file_identity(self) -> tuple[int, int] | None:
        """(device, inode) of the SQLite file now at :attr:`path` (None: no file there)."""
        if self.path is None:
            return None
        try:
            st_ = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st_.st_dev, st_.st_ino)

    def check_file(self) -> None:
        """Refuse when the SQLite file was deleted, moved away or replaced since it was opened.

        Raises:
            DatabaseFileGoneError: naming the file; nothing may be written.
        """
        if self.path is None or self._identity is None:
            return
        now = self._file_identity()
        if now != self._identity:
            if self._rescued is None:
                self._rescued = self._rescue(self.path)
            raise DatabaseFileGoneError(str(self.path), "deleted (or moved away)" if now is None
                                        else "replaced by another file",
                                        str(self._rescued) if self._rescued else None)

    def _rescue(self, path: Path) -> Path | None:
        """Copy what an open connection still reads of the lost file (every judgment confirmed
        through this store) to ``<name>.rescued-<time>.sqlite`` beside ``path``; None when no
        connection is open (a new one would only create an empty file at the path) or the copy
        cannot be written."""
        import sqlite3

        try:
            pool = self.engine.pool   # a file's engine has a QueuePool (_sqlite_engine)
            if not isinstance(pool, QueuePool) or pool.checkedin() < 1:
                return None
            stamp = time.strftime("%Y%m%d-%H%M%S")
            target = path.with_name(f"{path.name}.rescued-{stamp}.sqlite")
            k = 1
            while target.exists():
                k += 1
                target = path.with_name(f"{path.name}.rescued-{stamp}-{k}.sqlite")
            raw = self.engine.raw_connection()
            try:
                dst = sqlite3.connect(str(target))
                try:
                    source = raw.driver_connection
                    if source is None:   # an invalidated connection: nothing left to copy
                        raise sqlite3.Error("the open connection was invalidated")
                    source.backup(dst)
                finally:
                    dst.close()
            finally:
                raw.close()
            return target
        except (AttributeError, OSError, sqlite3.Error) as err:
            log.warning("annotation database %s: the open copy could not be rescued (%s)",
                        self.path, err)
            return None

    def close(self) -> None:
        if self.engine is not None:
            self.engine.dispose()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite), committed on exit.

        Raises:
            DatabaseFileGoneError: the SQLite file was deleted or replaced while open (checked
                before the transaction and again, under the write lock, before the commit).
            StoreError: the database is read-only, the disk is full, or the server went away
                (nothing of the transaction is kept; what was committed before stays).
        """
        if self.read_only:
            raise StoreError(f"annotation database {self.display_url} is read-only: "
                             "nothing can be saved to it")
        self.check_file()
        try:
            with self.engine.connect() as conn:
                conn.execution_options(segview_write=True)
                with conn.begin():
                    yield conn
                    self.check_file()  # still the same file: else the transaction rolls back
        except IntegrityError as err:  # callers turn it into their own message
            raise StoreConflictError(f"annotation database {self.display_url}: not saved "
                                     f"({_reason(err)})") from err
        except SQLAlchemyError as err:
            raise StoreError(f"annotation database {self.display_url}: not saved "
                             f"({_reason(err)})") from err

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction; a damaged file or a lost server is a StoreError."""
        try:
            with self.engine.connect() as conn:
                with conn.begin():
                    yield conn
        except SQLAlchemyError as err:
            raise StoreError(f"annotation database {self.display_url}: cannot be read "
                             f"({_reason(err)})") from err

    def _init_schema(self, create: bool) -> None:
        """Check (read-only), create (empty database) or migrate (older version) the schema.

        A database that holds other tables but no ``segview_meta`` belongs to another application
        and is refused untouched.
        """
        with self.read() as conn:
            state, version = self._schema_state(conn)
        if self.is_sqlite and not self.read_only:
            self._use_wal()  # only now: a foreign file is refused above, byte for byte untouched
        if state == "current":
            with self.read() as conn:
                self._check_columns(conn)
            return
        if self.read_only:
            raise StoreError(f"annotation database {self.display_url} is read-only and "
                             + ("empty" if state == "empty" else
                                f"at schema version {version} (this segview needs "
                                f"{SCHEMA_VERSION}): open it once where it can be written "
                                "to upgrade it"))
        with self.write() as conn:
            if not self.is_sqlite:
                conn.execute(text("SELECT pg_advisory_xact_lock(74655)"))
            state, version = self._schema_state(conn)  # again, under the write lock
            if state == "empty":
                if not create:
                    raise StoreError(f"{self.display_url}: not a segview annotation database")
                metadata.create_all(conn)
                conn.execute(insert(meta_table).values(key="schema_version",
                                                       value=str(SCHEMA_VERSION)))
                return
            if state == "old":
                migrate(conn, version)
            self._check_columns(conn)

    def _use_wal(self) -> None:
        """WAL journal (readers never block the writer); persistent in the file, set outside any
        transaction on the raw connection."""
        raw = self.engine.raw_connection()
        try:
            driver = raw.driver_connection
            if driver is None:   # a connection just checked out is never invalidated
                raise StoreError(f"annotation database {self.display_url}: no open connection")
            driver.execute("PRAGMA journal_mode=WAL")
        finally:
            raw.close()

    def _schema_state(self, conn: Connection) -> tuple[str, int]:
        """``("empty"|"current"|"old", version)`` (version 0 when empty); raises for foreign,
        damaged or newer databases."""
        from sqlalchemy import inspect

        tables = set(inspect(conn).get_table_names())
        if meta_table.name not in tables:
            if tables:
                shown = ", ".join(sorted(tables)[:5])
                raise StoreError(f"{self.display_url}: not a segview annotation database (it "
                                 f"holds other tables: {shown}); segview leaves it untouched")
            return "empty", 0
        version = conn.execute(select(meta_table.c.value).where(
            meta_table.c.key == "schema_version")).scalar()
        try:
            number = int(str(version))
        except ValueError:
            raise StoreError(f"{self.display_url}: damaged annotation database (schema "
                             f"version {version!r} is not a number)") from None
        if number > SCHEMA_VERSION:
            raise StoreError(f"{self.display_url}: annotation schema version {number} is "
                             f"newer than this segview's ({SCHEMA_VERSION}); update segview")
        if number < 1:
            raise StoreError(f"{self.display_url}: damaged annotation database (schema "
                             f"version {number})")
        return ("current" if number == SCHEMA_VERSION else "old"), number

    def _check_columns(self, conn: Connection) -> None:
        from sqlalchemy import inspect

        insp = inspect(conn)
        present = set(insp.get_table_names())
        for table in (sessions, items, judges, events, item_dimensions, assignments):
            if table.name not in present:
                raise StoreError(f"{self.display_url}: table {table.name!r} is missing; the "
                                 "database was damaged or made by a development version")
            have = {c["name"] for c in insp.get_columns(table.name)}
            missing = [c.name for c in table.columns if c.name not in have]
            if missing:
                raise StoreError(f"{self.display_url}: table {table.name!r} lacks "
                                 f"column(s) {', '.join(missing)}; the database was made "
                                 "by a development version of segview")

    # ----- sessions -------------------------------------------------------------------------
    def session_names(self) -> list[str]:
        with self.read() as conn:
            return list(conn.execute(select(sessions.c.name).order_by(sessions.c.id)).scalars())

    def session_row(self, name: str) -> Any:
        with self.read() as conn:
            row = conn.execute(select(sessions).where(sessions.c.name == name)).first()
        if row is None:
            raise InputError(name, f"no such annotation session in {self.display_url}")
        return row

    def insert_session(self, name: str, protocol: str, settings: Mapping[str, Any],
                       tool_version: str, item_rows: list[dict[str, Any]] | None = None,
                       then: Any = None) -> int:
        """Create a session and its items in ONE transaction: a kill or a full disk midway leaves
        no session behind (no zombie with zero series whose name can never be reused)."""
        if protocol not in PROTOCOLS:
            raise InputError(name, f"protocol must be one of {', '.join(PROTOCOLS)}, "
                                   f"got {protocol!r}")
        check_text(name, f"session name {shown(name)}", MAX_NAME)
        for k, row in enumerate(item_rows or ()):
            check_text(row.get("series_id"), f"series id {shown(row.get('series_id'))} (series "
                                             f"{k + 1} of session {shown(name)})", MAX_SERIES_ID)
            check_text(row.get("source"), f"source of series {shown(row.get('series_id'))}")
        try:
            with self.write() as conn:
                exists = conn.execute(select(sessions.c.id).where(sessions.c.name == name)).first()
                if exists is not None:
                    raise InputError(name, "an annotation session of that name already exists")
                sid = _new_id(conn.execute(insert(sessions).values(
                    name=name, protocol=protocol,
                    settings=json.dumps(dict(settings), sort_keys=True),
                    created_at=time.time(), tool_version=tool_version)))
                if item_rows:
                    conn.execute(insert(items), [{**r, "session_id": sid} for r in item_rows])
                if then is not None:  # further rows of the new session, same transaction
                    then(conn, sid)
                return sid
        except StoreConflictError as err:  # also when another process created it at the same moment
            if name in self.session_names():
                raise InputError(name, "an annotation session of that name already exists") from None
            raise InputError(name, f"the session could not be created ({_reason(err.__cause__ or err)})") from None

    def delete_session(self, name: str) -> int:
        """Remove a session with its series, judges and every event; returns the events removed."""
        sid = int(self.session_row(name).id)
        with self.write() as conn:
            n = conn.execute(delete(events).where(events.c.session_id == sid)).rowcount
            conn.execute(delete(assignments).where(assignments.c.session_id == sid))
            conn.execute(delete(item_dimensions).where(item_dimensions.c.item_id.in_(
                select(items.c.id).where(items.c.session_id == sid))))
            for table in (judges, items):
                conn.execute(delete(table).where(table.c.session_id == sid))
            conn.execute(delete(sessions).where(sessions.c.id == sid))
        return int(n or 0)

    def rename_session(self, old: str, new: str) -> None:
        new = new.strip()
        if not new:
            raise InputError(old, "the new session name is empty")
        check_text(new, f"session name {shown(new)}", MAX_NAME)
        sid = int(self.session_row(old).id)
        try:
            with self.write() as conn:
                if conn.execute(select(sessions.c.id).where(sessions.c.name == new)).first():
                    raise InputError(new, "an annotation session of that name already exists")
                conn.execute(update(sessions).where(sessions.c.id == sid).values(name=new))
        except StoreConflictError:
            raise InputError(new, "an annotation session of that name already exists") from None

    # ----- events ---------------------------------------------------------------------------
    def append_event(self, conn: Connection, **values: Any) -> int:
        values.setdefault("created_at", time.time())
        if values.get("change_points") is not None:
            values["change_points"] = json.dumps([int(c) for c in values["change_points"]])
        return _new_id(conn.execute(insert(events).values(**values)))

    def judge_history(self, judge_id: int, conn: Connection | None = None) -> list[Event]:
        q = select(events).where(events.c.judge_id == judge_id).order_by(events.c.id)
        if conn is not None:
            return [_event(r) for r in conn.execute(q)]
        with self.read() as c:
            return [_event(r) for r in c.execute(q)]

    def session_history(self, session_id: int) -> list[Event]:
        with self.read() as conn:
            return [_event(r) for r in conn.execute(
                select(events).where(events.c.session_id == session_id).order_by(events.c.id))]

    def lock_judge(self, conn: Connection, judge_id: int) -> None:
        """Serialise one judge's actions (row lock on PostgreSQL; SQLite's write lock suffices)."""
        conn.execute(select(judges.c.id).where(judges.c.id == judge_id).with_for_update())

    def integrity_check(self) -> str:
        """``ok`` or the problems SQLite reports (PostgreSQL: ``ok`` when it answers)."""
        with self.read() as conn:
            if self.is_sqlite:
                return str(conn.exec_driver_sql("PRAGMA integrity_check").scalar())
            conn.execute(text("SELECT 1"))
            return "ok"
