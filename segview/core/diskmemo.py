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


# (environment override, Windows variable and subfolder, macOS subfolder, XDG variable and default)
_USER_DIRS = {
    "cache": ("SEGVIEW_CACHE_DIR", "LOCALAPPDATA", ("AppData", "Local"), ("Library", "Caches"),
              "XDG_CACHE_HOME", ".cache"),
    "config": ("SEGVIEW_CONFIG_DIR", "APPDATA", ("AppData", "Roaming"),
               ("Library", "Application Support"), "XDG_CONFIG_HOME", ".config"),
}


def _user_dir(kind: str) -> Path:
    env, win_env, win_sub, mac_sub, xdg_env, xdg_default = _USER_DIRS[kind]
    explicit = os.environ.get(env)
    if explicit:
        return Path(explicit)
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get(win_env) or os.path.join(home, *win_sub)
    elif sys.platform == "darwin":
        base = os.path.join(home, *mac_sub)
    else:
        base = os.environ.get(xdg_env) or os.path.join(home, xdg_default)
    return Path(base) / "segview"


def user_cache_dir() -> Path:
    """segview's cache folder: ``$SEGVIEW_CACHE_DIR``, else the platform's user cache folder."""
    return _user_dir("cache")


def user_config_dir() -> Path:
    """segview's config folder: ``$SEGVIEW_CONFIG_DIR``, else the platform's user config folder
    (``$XDG_CONFIG_HOME/segview``, ``~/.config/segview``; ``%APPDATA%\\segview`` on Windows,
    ``~/Library/Application Support/segview`` on macOS)."""
    return _user_dir("config")


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
