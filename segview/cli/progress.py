"""A small progress bar on stderr, shown only when stderr is a terminal."""
from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """``with ProgressBar(total, "detect") as bar: bar.update(1)``; silent when not a TTY."""

    def __init__(self, total: int, label: str = "", stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self.total = max(int(total), 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.done = 0
        self._start = time.monotonic()
        self._last = 0.0

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()

    def update(self, n: int = 1, note: str = "") -> None:
        self.done += n
        if self.enabled:
            self._draw(note=note)

    def _draw(self, note: str = "", force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        frac = min(self.done / self.total, 1.0)
        width = 30
        filled = int(frac * width)
        elapsed = now - self._start
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        bar = "#" * filled + "-" * (width - filled)
        text = f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.1f}s eta {eta:5.1f}s"
        if note:
            text += f" {note[:30]}"
        self.stream.write(text.ljust(90))
        self.stream.flush()
