"""On-disk cache of detector results keyed by (series content hash, detector name, detector
version, coerced parameters). A SQLite file, read and written only by the process that drives a batch
(workers just compute), so concurrent workers never contend for it.

A cache only saves time, so a damaged one never stops a run: a file that is not (or no longer) a
SQLite database is rebuilt empty, a file that cannot be used at all (locked for too long, a folder
in its place) turns the cache off for the run, and an entry that does not decode to a result is a
miss; each case logs one warning naming the file, and the runs concerned are computed again.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .batch import MethodSpec

log = logging.getLogger(__name__)

FILE = "results.sqlite"


def default_cache_dir() -> Path:
    """The result cache every front end shares (CLI ``--cache-dir`` default, the GUI's evaluation
    view), so a run from one is a cache hit in the other."""
    from ..diskmemo import user_cache_dir

    return user_cache_dir() / "results"
_DAMAGED = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}


def _is_damage(err: sqlite3.Error) -> bool:
    """The file is not, or no longer, a SQLite database (rather than busy or unreadable)."""
    name = getattr(err, "sqlite_errorname", "") or ""
    text = str(err).lower()
    return (any(name == n or name.startswith(n + "_") for n in _DAMAGED)
            or "not a database" in text or "malformed" in text)


def valid_entry(v: Any) -> bool:
    """A cached result as :mod:`.batch` stores it: ``steady_index`` int or None,
    ``change_points`` a list of ints or None (onsets-only runs), ``runtime_ms`` a number."""
    if not isinstance(v, dict):
        return False
    si, cps, ms = v.get("steady_index", ...), v.get("change_points", ...), v.get("runtime_ms")
    return ((si is None or (isinstance(si, int) and not isinstance(si, bool)))
            and (cps is None or (isinstance(cps, list) and all(
                isinstance(c, int) and not isinstance(c, bool) for c in cps)))
            and isinstance(ms, (int, float)) and not isinstance(ms, bool) and math.isfinite(ms))


class ResultCache:
    """SQLite map of run key -> result JSON; used from the calling process only."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / FILE
        self.db: sqlite3.Connection | None = None
        self._bad_entries = 0
        self._open(rebuild_on_damage=True)

    # ----------------------------------------------------------------- damage handling
    def _connect(self) -> None:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, value TEXT)")
            db.execute("SELECT key, value FROM results LIMIT 1").fetchall()
        except BaseException:
            db.close()
            raise
        self.db = db

    def _open(self, rebuild_on_damage: bool) -> None:
        try:
            self._connect()
        except sqlite3.Error as err:
            self._failed(err, rebuild_on_damage)

    def _failed(self, err: sqlite3.Error, rebuild: bool = True) -> None:
        """Rebuild a damaged file (once), otherwise run without the cache; one warning."""
        self.close()
        if rebuild and _is_damage(err):
            try:
                for suffix in ("", "-journal", "-wal", "-shm"):
                    p = Path(f"{self.path}{suffix}")
                    if p.exists() or p.is_symlink():
                        os.unlink(p)
                self._connect()
            except (OSError, sqlite3.Error) as again:
                self.close()
                log.warning("result cache %s is damaged (%s) and cannot be rebuilt (%s); running "
                            "without it", self.path, err, again)
                return
            log.warning("result cache %s was damaged (%s); rebuilt empty, its results are "
                        "computed again", self.path, err)
            return
        log.warning("result cache %s cannot be used (%s); running without it", self.path, err)

    # ----------------------------------------------------------------- keys
    @staticmethod
    def spec_part(ms: "MethodSpec") -> str:
        params = json.dumps(sorted((k, v) for k, v in ms.params.items()), default=str)
        return f"{ms.spec.name.lower()}|{ms.spec.version}|{params}"

    @staticmethod
    def key_from(series_hash: str, spec_part: str) -> str:
        return hashlib.sha256(f"{series_hash}|{spec_part}".encode()).hexdigest()

    @classmethod
    def key(cls, series_hash: str, ms: "MethodSpec") -> str:
        """Cache key of (series content, detector name, detector version, parameters)."""
        return cls.key_from(series_hash, cls.spec_part(ms))

    # ----------------------------------------------------------------- access
    def get_many(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The cached results of ``keys`` (missing, damaged or undecodable entries left out)."""
        out: dict[str, dict[str, Any]] = {}
        if self.db is None:
            return out
        bad = 0
        try:
            for i in range(0, len(keys), 500):
                part = list(keys[i:i + 500])
                marks = ",".join("?" * len(part))
                for k, v in self.db.execute(
                        f"SELECT key, value FROM results WHERE key IN ({marks})", part):
                    try:
                        entry = json.loads(v)
                    except (TypeError, ValueError, RecursionError):
                        entry = None
                    if valid_entry(entry):
                        out[k] = entry
                    else:
                        bad += 1
        except sqlite3.Error as err:
            self._failed(err)
            return {}
        if bad:
            if not self._bad_entries:
                log.warning("result cache %s: %d damaged entr%s ignored; those runs are computed "
                            "again", self.path, bad, "y" if bad == 1 else "ies")
            self._bad_entries += bad
        return out

    def put_many(self, items: Iterable[tuple[str, dict[str, Any]]]) -> None:
        if self.db is None:
            return
        items = list(items)
        try:
            with self.db:
                self.db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?)",
                                    ((k, json.dumps(v)) for k, v in items))
        except sqlite3.Error as err:
            self._failed(err)
            if self.db is not None:  # rebuilt: store this run's results in the new file
                try:
                    with self.db:
                        self.db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?)",
                                            ((k, json.dumps(v)) for k, v in items))
                except sqlite3.Error as again:
                    self._failed(again, rebuild=False)

    def close(self) -> None:
        if self.db is not None:
            try:
                self.db.close()
            except sqlite3.Error:
                pass
            self.db = None
