"""On-disk cache of detector results keyed by (series content hash, detector name, detector
version, coerced parameters). A SQLite file, read and written only by the process that drives a batch
(workers just compute), so concurrent workers never contend for it."""
from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .batch import MethodSpec


class ResultCache:
    """SQLite map of run key -> result JSON; used from the calling process only."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.dir / "results.sqlite", timeout=30)
        self.db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, value TEXT)")

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

    def get_many(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for i in range(0, len(keys), 500):
            part = list(keys[i:i + 500])
            marks = ",".join("?" * len(part))
            for k, v in self.db.execute(f"SELECT key, value FROM results WHERE key IN ({marks})",
                                        part):
                out[k] = json.loads(v)
        return out

    def put_many(self, items: Iterable[tuple[str, dict[str, Any]]]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?)",
                                ((k, json.dumps(v)) for k, v in items))

    def close(self) -> None:
        self.db.close()
