"""What the cached prepare stages of segneigh and kcpa share (:class:`GrowingState`)."""
from __future__ import annotations

import threading
from collections.abc import Iterable

import numpy as np


class GrowingState:
    """A prepare stage that grows in place under a lock and travels between processes.

    Subclasses call ``super().__init__()`` and list their arrays in :meth:`frozen_arrays`. A
    pickled state drops the lock and gets a new one; its arrays come back read-only, because
    unpickled arrays are writeable and numba types read-only arrays apart, so a state from a
    worker process would otherwise compile its kernel a second time at the first slider move."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def frozen_arrays(self) -> Iterable[np.ndarray | None]:
        return ()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        for a in self.frozen_arrays():
            if a is not None:
                a.flags.writeable = False
