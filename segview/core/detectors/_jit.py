"""numba as segview's kernel modules import it: :func:`segview.core.kernels.configure` runs first.

Every module with numba code imports ``njit`` (and ``prange``) from here instead of from numba, so
that numba's cache folder and threading layer are set before the first kernel is compiled or loaded
from the cache, whichever module is imported first (a detector at its first run, a test, the worker
fork server's preload). See :mod:`segview.core.kernels`.
"""
from __future__ import annotations

import types

from ..kernels import configure, watch_compiles

configure()

from numba import njit, prange  # noqa: E402  (after configure, on purpose)

watch_compiles()  # a cancelled run stops its kernels' compilation (kernels.cancellable_compiles)



def plain(kernel, **callees):
    """The Python function behind ``kernel`` with its kernel callees replaced by their own Python
    functions (``name=callee.py_func``), so the plain twin runs no compiled code at all."""
    fn = kernel.py_func
    glb = dict(fn.__globals__)
    glb.update(callees)
    return types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)


__all__ = ["njit", "plain", "prange"]
