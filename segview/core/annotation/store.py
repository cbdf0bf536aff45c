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

Tables added after schema version 1 are created when an older database is opened (additive only).

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
                        Table, Text, UniqueConstraint, create_engine, event, insert, select, text)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import ArgumentError, IntegrityError, SQLAlchemyError

from ..errors import InputError, RecoverableError

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
DEFAULT_FILENAME = "segview-annotations.sqlite"
PROTOCOLS = ("steady_state", "change_points")
ROLES = ("judge", "adjudicator")
EVENT_KINDS = ("label", "clear", "undo", "redo", "visit")
BUSY_TIMEOUT_S = 60.0

metadata = MetaData()

meta_table = Table("segview_meta", metadata,
                   Column("key", String(64), primary_key=True),
                   Column("value", Text, nullable=False))

sessions = Table(
    "sessions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("protocol", String(32), nullable=False),
    Column("settings", Text, nullable=False, default="{}"),
    Column("created_at", Float, nullable=False),
    Column("tool_version", String(40), nullable=False, default=""),
)

items = Table(
    "items", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("session_id", Integer, ForeignKey("sessions.id"), nullable=False, index=True),
    Column("series_id", String(500), nullable=False),
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
    Column("name", String(200), nullable=False),
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


def default_db_path(folder: str | os.PathLike[str] | None = None) -> Path:
    """The embedded database file: ``$SEGVIEW_DB`` if set, else
    ``<folder or cwd>/segview-annotations.sqlite``."""
    env = os.environ.get("SEGVIEW_DB")
    if env and folder is None:
        return Path(env)
    return Path(folder or Path.cwd()) / DEFAULT_FILENAME


def normalise_url(db: str | os.PathLike[str] | None) -> str:
    """A database URL from a URL, a file path or None (the default file)."""
    if db is None:
        return f"sqlite:///{default_db_path().resolve()}"
    db = str(db)
    if "://" in db:
        if db.startswith("postgresql://"):  # pick the psycopg 3 driver we depend on
            db = "postgresql+psycopg://" + db[len("postgresql://"):]
        return db
    return f"sqlite:///{Path(db).expanduser().resolve()}"


def _sqlite_engine(url: str) -> Engine:
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_S,
                                              "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _rec: Any) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("segview_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


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
    cps = None if row.change_points is None else tuple(json.loads(row.change_points))
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
    current: dict[int, Event] = {}
    for eid in done:
        ev = by_id[eid]
        if ev.item_id is not None:
            current[(ev.item_id, ev.repeat)] = ev
    current = {k: v for k, v in current.items() if v.kind == "label"}
    return current, done, redo


class Store:
    """A connection to an annotation database.

    Args:
        db: SQLAlchemy URL (``sqlite:///path``, ``postgresql+psycopg://user:pw@host/db``), a file
            path, or None for the default embedded file (:func:`default_db_path`).
        create: create the schema when the database is empty.

    Raises:
        RecoverableError: the database cannot be opened or has an unknown schema version.
    """

    def __init__(self, db: str | os.PathLike[str] | None = None, *, create: bool = True) -> None:
        self.url = normalise_url(db)
        try:
            if self.url.startswith("sqlite"):
                path = self.url[len("sqlite:///"):] if self.url.startswith("sqlite:///") else ""
                if path and path != ":memory:":
                    Path(path).parent.mkdir(parents=True, exist_ok=True)
                self.engine = _sqlite_engine(self.url)
            else:
                self.engine = create_engine(self.url, pool_pre_ping=True)
            self._init_schema(create)
        except (ArgumentError, SQLAlchemyError, ImportError) as err:
            hint = ("; PostgreSQL needs the driver: pip install 'psycopg[binary]'"
                    if isinstance(err, ImportError) and "psycopg" in str(err) else "")
            raise RecoverableError(f"annotation database {self.display_url}: cannot be opened "
                                   f"({err.__class__.__name__}: {str(err).splitlines()[0]}){hint}"
                                   ) from err

    @property
    def display_url(self) -> str:
        """The URL without a password."""
        try:
            from sqlalchemy.engine import make_url
            return make_url(self.url).render_as_string(hide_password=True)
        except Exception:  # noqa: BLE001 - only for messages
            return self.url

    @property
    def is_sqlite(self) -> bool:
        return self.url.startswith("sqlite")

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite), committed on exit."""
        with self.engine.connect() as conn:
            conn.execution_options(segview_write=True)
            with conn.begin():
                yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            with conn.begin():
                yield conn

    def _init_schema(self, create: bool) -> None:
        with self.write() as conn:
            if not self.is_sqlite:
                conn.execute(text("SELECT pg_advisory_xact_lock(74655)"))
            has_meta = self.engine.dialect.has_table(conn, meta_table.name)
            if not has_meta:
                if not create:
                    raise RecoverableError(f"{self.display_url}: not a segview annotation database")
                metadata.create_all(conn)
                conn.execute(insert(meta_table).values(key="schema_version",
                                                       value=str(SCHEMA_VERSION)))
                return
            version = conn.execute(select(meta_table.c.value).where(
                meta_table.c.key == "schema_version")).scalar()
            if version is None or int(version) > SCHEMA_VERSION:
                raise RecoverableError(f"{self.display_url}: annotation schema version {version} "
                                       f"is newer than this segview ({SCHEMA_VERSION})")
            self._check_columns(conn)
            metadata.create_all(conn)  # tables added since (additive; existing ones untouched)

    def _check_columns(self, conn: Connection) -> None:
        from sqlalchemy import inspect

        insp = inspect(conn)
        for table in (sessions, items, judges, events):
            have = {c["name"] for c in insp.get_columns(table.name)}
            missing = [c.name for c in table.columns if c.name not in have]
            if missing:
                raise RecoverableError(f"{self.display_url}: table {table.name!r} lacks "
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
                       tool_version: str) -> int:
        if protocol not in PROTOCOLS:
            raise InputError(name, f"protocol must be one of {', '.join(PROTOCOLS)}, "
                                   f"got {protocol!r}")
        try:
            with self.write() as conn:
                exists = conn.execute(select(sessions.c.id).where(sessions.c.name == name)).first()
                if exists is not None:
                    raise InputError(name, "an annotation session of that name already exists")
                return int(conn.execute(insert(sessions).values(
                    name=name, protocol=protocol,
                    settings=json.dumps(dict(settings), sort_keys=True),
                    created_at=time.time(), tool_version=tool_version)).inserted_primary_key[0])
        except IntegrityError:  # also when another process created it at the same moment
            raise InputError(name, "an annotation session of that name already exists") from None

    # ----- events ---------------------------------------------------------------------------
    def append_event(self, conn: Connection, **values: Any) -> int:
        values.setdefault("created_at", time.time())
        if values.get("change_points") is not None:
            values["change_points"] = json.dumps([int(c) for c in values["change_points"]])
        return int(conn.execute(insert(events).values(**values)).inserted_primary_key[0])

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
