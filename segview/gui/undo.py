"""Undo/redo of the explorer's parameter changes (Edit menu, Ctrl+Z / Ctrl+Shift+Z).

Every accepted change of a method's parameters becomes one :class:`ParamChange` on a ``QUndoStack``.
A slider drag or a run of spin-box steps on the same parameter within ``MERGE_SECONDS`` merges into
one entry, so one Ctrl+Z undoes the drag, not each pixel of it.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from ..core.params import Params

MERGE_SECONDS = 1.5


def changed_keys(old: Params, new: Params) -> frozenset[str]:
    return frozenset(k for k in set(old) | set(new) if old.get(k) != new.get(k))


class ParamChange(QUndoCommand):
    """``method``'s parameters went from ``old`` to ``new``; ``apply(method, params)`` shows them."""

    ID = 0x5E6

    def __init__(self, method: str, label: str, old: Params, new: Params,
                 apply: Callable[[str, Params], None]) -> None:
        super().__init__()
        self.method, self.label, self.old, self.new, self.apply = method, label, old, new, apply
        self.keys = changed_keys(old, new)
        self.when = time.monotonic()
        self._first = True
        self._describe()

    def _describe(self) -> None:
        shown = ", ".join(f"{k}={self.new.get(k)!r}" for k in sorted(changed_keys(self.old, self.new)))
        self.setText(f"{self.label}: {shown or 'no change'}")

    def id(self) -> int:  # noqa: A003 (Qt API)
        return self.ID

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 (Qt API)
        if not isinstance(other, ParamChange) or other.method != self.method \
                or other.keys != self.keys or len(self.keys) != 1 \
                or other.when - self.when > MERGE_SECONDS:
            return False
        self.new, self.when = other.new, other.when
        self._describe()
        return True

    def redo(self) -> None:
        if self._first:  # the change is already on screen when the command is pushed
            self._first = False
            return
        self.apply(self.method, self.new)

    def undo(self) -> None:
        self.apply(self.method, self.old)
