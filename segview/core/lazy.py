"""Modules imported on first use.

Registering and listing the detectors (``segview methods``, the GUI's method list, a worker that
runs one method) must not import numba, llvmlite or scipy: a detector module names its kernel
module through :func:`lazy_module`, and the kernels load when the detector first runs (issue 15.5).
A type checker sees the real module::

    if TYPE_CHECKING:
        from . import _kbkssd_kernels as _k
    else:
        _k = lazy_module("._kbkssd_kernels", __package__)

A kernel written in a detector module itself (called from Python only) takes :func:`lazy_njit`
instead of ``numba.njit``: numba is imported and the function compiled (or loaded from numba's
on-disk cache) at its first call.
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
#: one first import (or first compile) at a time: two threads importing numba's deep import graph
#: at once (the explorer's pool threads when worker processes are unavailable) can be handed a
#: partially initialised module by Python's deadlock avoidance ("cannot import name 'njit'").
#: Reentrant: a module imported under it may import another lazily.
_IMPORT_LOCK = threading.RLock()


class LazyModule(ModuleType):
    """Stands for the module ``__name__``; the first attribute read imports it.

    Every read goes to the real module (``getattr``), so names replaced there (a test's
    ``monkeypatch``) are seen; the stand-in itself is never put in ``sys.modules``.
    """

    _target: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:  # called only for names the stand-in lacks
        target = self._target
        if target is None:
            with _IMPORT_LOCK:
                target = self._target
                if target is None:
                    target = importlib.import_module(self.__name__)
                    self._target = target
        return getattr(target, attr)

    def __repr__(self) -> str:
        state = "loaded" if self._target is not None else "not loaded yet"
        return f"<lazy module {self.__name__!r} ({state})>"


def lazy_module(name: str, package: str | None = None) -> ModuleType:
    """A stand-in for module ``name`` (relative names need ``package``) imported at first use."""
    return LazyModule(importlib.util.resolve_name(name, package))


class _LazyJit:
    """A function compiled by ``numba.njit(**options)`` at its first call (see :func:`lazy_njit`)."""

    def __init__(self, func: Callable[..., Any], options: dict[str, Any]) -> None:
        functools.update_wrapper(self, func)
        self.py_func, self._options = func, options
        self._dispatcher: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        dispatcher = self._dispatcher
        if dispatcher is None:
            with _IMPORT_LOCK:
                if self._dispatcher is None:
                    from .kernels import configure, watch_compiles

                    configure()  # numba's cache folder and threading layer, before compiling
                    from numba import njit

                    watch_compiles()  # cancellable compilation (kernels.cancellable_compiles)

                    self._dispatcher = njit(**self._options)(self.py_func)
                dispatcher = self._dispatcher
        return dispatcher(*args, **kwargs)


def lazy_njit(**options: Any) -> Callable[[F], F]:
    """``numba.njit(**options)`` applied at the first call (Python callers only: another jitted
    function cannot call the stand-in; put such kernels in a ``_*_kernels`` module)."""
    def wrap(func: F) -> F:
        return _LazyJit(func, options)  # type: ignore[return-value]  # the stand-in compiles on first call and then behaves as the kernel F
    return wrap
