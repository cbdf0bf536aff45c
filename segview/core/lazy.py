"""Modules imported on first use.

Registering and listing the detectors (``segview methods``, the GUI's method list, a worker that
runs one method) must not import numba, llvmlite or scipy: a detector module names its kernel
module through :func:`lazy_module`, and the kernels load when the detector first runs (issue 15.5).
A type checker sees the real module::

    if TYPE_CHECKING:
        from . import _kbkssd_kernels as _k
    else:
        _k = lazy_module("._kbkssd_kernels", __package__)
"""
from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any


class LazyModule(ModuleType):
    """Stands for the module ``__name__``; the first attribute read imports it.

    Every read goes to the real module (``getattr``), so names replaced there (a test's
    ``monkeypatch``) are seen; the stand-in itself is never put in ``sys.modules``.
    """

    _target: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:  # called only for names the stand-in lacks
        target = self._target
        if target is None:
            # import_module waits while another thread is still executing the module
            target = importlib.import_module(self.__name__)
            self._target = target
        return getattr(target, attr)

    def __repr__(self) -> str:
        state = "loaded" if self._target is not None else "not loaded yet"
        return f"<lazy module {self.__name__!r} ({state})>"


def lazy_module(name: str, package: str | None = None) -> ModuleType:
    """A stand-in for module ``name`` (relative names need ``package``) imported at first use."""
    return LazyModule(importlib.util.resolve_name(name, package))
