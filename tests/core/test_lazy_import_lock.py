"""Lazily imported kernel modules are imported one thread at a time (segview.core.lazy): when the
explorer runs detectors in pool threads (worker processes unavailable), two detectors' first runs
importing numba at once were handed a partially initialised module ("cannot import name 'njit'")."""
from __future__ import annotations

import importlib
import threading

from segview.core import lazy


class _WatchedLock:
    """A reentrant lock that says when a thread starts waiting for it."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.asked = threading.Event()
        self.askers: list[str] = []

    def __enter__(self):
        self.askers.append(threading.current_thread().name)
        if len(self.askers) > 1:
            self.asked.set()
        self._lock.acquire()
        return self

    def __exit__(self, *exc):
        self._lock.release()
        return False


def test_two_threads_never_import_lazily_at_once(monkeypatch):
    lock = _WatchedLock()
    monkeypatch.setattr(lazy, "_IMPORT_LOCK", lock)
    inside = {"now": 0, "most": 0}
    first_in = threading.Event()
    let_go = threading.Event()
    real = importlib.import_module

    def slow_import(name, package=None):
        inside["now"] += 1
        inside["most"] = max(inside["most"], inside["now"])
        if name.endswith("json"):  # the first thread's import: held until the second one waits
            first_in.set()
            assert let_go.wait(timeout=30)
        inside["now"] -= 1
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", slow_import)
    a, b = lazy.LazyModule("json"), lazy.LazyModule("csv")
    errors: list[BaseException] = []

    def read(mod, attr):
        try:
            getattr(mod, attr)
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    t1 = threading.Thread(target=read, args=(a, "dumps"), name="first")
    t1.start()
    assert first_in.wait(timeout=30)
    t2 = threading.Thread(target=read, args=(b, "reader"), name="second")
    t2.start()
    assert lock.asked.wait(timeout=30), "the second import did not go through the lock"
    let_go.set()
    t1.join(timeout=30)
    t2.join(timeout=30)
    assert not errors
    assert inside["most"] == 1  # never two imports in progress
    assert a.dumps is not None and b.reader is not None


def test_a_module_imported_under_the_lock_may_import_another_lazily():
    outer = lazy.LazyModule("segview.core.detectors._jit")  # imports numba at first use
    with lazy._IMPORT_LOCK:  # reentrant: the same thread importing lazily inside is fine
        assert callable(outer.njit)
