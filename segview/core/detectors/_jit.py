"""numba as segview's kernel modules import it: :func:`segview.core.kernels.configure` runs first.

Every module with numba code imports ``njit`` (and ``prange``) from here instead of from numba, so
that numba's cache folder and threading layer are set before the first kernel is compiled or loaded
from the cache, whichever module is imported first (a detector at its first run, a test, the worker
fork server's preload). See :mod:`segview.core.kernels`.
"""
from __future__ import annotations

from ..kernels import configure, watch_compiles

configure()

from numba import njit, prange  # noqa: E402  (after configure, on purpose)

watch_compiles()  # a cancelled run stops its kernels' compilation (kernels.cancellable_compiles)

__all__ = ["njit", "prange"]
