"""A small persistent memo of numbers shared by processes: the user cache folder, one SQLite file.

Used for values that are expensive, deterministic and reused across runs and processes, such as
the seeded Monte Carlo critical values of the Berry-Hellerstein test: the explorer's worker
processes, batch workers and later sessions all read what one of them computed. Any failure to
open, read or write the file (read-only home, locked or corrupt file) turns the memo into a no-op
for the process; callers then simply compute again.
"""
from __future__ import annotations

import logging
import os
import sqlite3
import sys
import threading
from pathlib import Path

log = logging.getLogger(__name__)


def user_cache_dir() -> Path:
    """segview's cache folder: ``$SEGVIEW_CACHE_DIR``, else the platform's user cache folder."""
    explicit = os.environ.get("SEGVIEW_CACHE_DIR")
    if explicit:
        return Path(explicit)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData",
                                                               "Local")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "segview"


class DiskMemo:
    """Persistent ``str -> float`` map in ``user_cache_dir() / f"{name}.sqlite"``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._db: sqlite3.Connection | None = None
        self._path: Path | None = None
        self._broken = False
        self._lock = threading.Lock()

    def _conn(self) -> sqlite3.Connection | None:
        path = user_cache_dir() / f"{self.name}.sqlite"
        if self._db is not None and path == self._path:
            return self._db
        if self._broken and path == self._path:
            return None
        self.close()
        self._path, self._broken = path, False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=5, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS memo (key TEXT PRIMARY KEY, value REAL NOT NULL)")
            db.commit()
        except (OSError, sqlite3.Error) as err:
            log.debug("disk memo %s unavailable at %s: %s", self.name, path, err)
            self._broken = True
            return None
        self._db = db
        return db

    def get(self, key: str) -> float | None:
        with self._lock:
            db = self._conn()
            if db is None:
                return None
            try:
                row = db.execute("SELECT value FROM memo WHERE key = ?", (key,)).fetchone()
                return None if row is None else float(row[0])
            except (sqlite3.Error, TypeError, ValueError) as err:  # a damaged file or entry: a miss
                log.debug("disk memo %s read failed: %s", self.name, err)
                return None

    def put(self, key: str, value: float) -> None:
        with self._lock:
            db = self._conn()
            if db is None:
                return
            try:
                with db:
                    db.execute("INSERT OR REPLACE INTO memo VALUES (?, ?)", (key, float(value)))
            except sqlite3.Error as err:
                log.debug("disk memo %s write failed: %s", self.name, err)

    def clear(self) -> None:
        with self._lock:
            db = self._conn()
            if db is not None:
                try:
                    with db:
                        db.execute("DELETE FROM memo")
                except sqlite3.Error:
                    pass

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
