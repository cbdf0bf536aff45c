"""Kernels that fail safe: the numba environment and the fall-back from a fast path to a plain one.

Every numba kernel module imports numba through :mod:`segview.core.detectors._jit`, which calls
:func:`configure` first (once a process, at the first kernel use, never at ``import segview``):

* ``NUMBA_CACHE_DIR``, unless the user set it, becomes a folder under segview's cache
  (:func:`segview.core.diskmemo.user_cache_dir`) named after segview's version and a hash of the
  source of every kernel module. numba's own ``cache=True`` checks only the source file of the
  function it compiled, not the callees inlined into it from other modules (``inline="always"``,
  :mod:`._vec8`'s intrinsics, ``_cost_kernels.segment_cost``), so an edited callee would otherwise
  leave stale machine code in use.
* ``NUMBA_THREADING_LAYER``, unless set, is pinned to ``workqueue``: numba's own layer, present on
  every platform (``tbb`` needs the ``tbb`` package, ``omp`` a compatible OpenMP runtime, so the
  default choice differs between machines) and safe across ``fork``. It is not safe for two
  threads launching parallel kernels at once (numba aborts the process), and the explorer's
  in-process modes run detectors on several ``QThreadPool`` threads: every launch of a parallel
  kernel takes :data:`PARALLEL_LOCK` (:func:`parallel_launch`), which makes any layer safe.

:func:`fast_or_plain` runs a fast path (hand-written LLVM intrinsics, a parallel or auto-vectorised
kernel) and, when numba or LLVM fails on it (a compile error at the first call, a missing
intrinsic, an LLVM error raised as an exception), runs the plain path that gives the same result
exactly and returns a note for :attr:`segview.core.result.DetectionResult.notes`. The failure is
logged once per process (a log record, not a warning: the tests turn segview's warnings into
errors). ``SEGVIEW_NO_SIMD=1`` (:func:`simd_enabled`) skips the hand-written vector kernels
altogether. ``docs/kernels.md`` lists the fast paths and their plain paths.
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Environment variable: ``1`` (or ``true``/``yes``/``on``) disables the hand-written vector kernels.
NO_SIMD_ENV = "SEGVIEW_NO_SIMD"
#: The threading layer pinned when the user has not chosen one (see the module docstring).
THREADING_LAYER = "workqueue"
#: Held while a parallel kernel runs (:func:`parallel_launch`).
PARALLEL_LOCK = threading.RLock()

_CONFIG_LOCK = threading.Lock()
_configured = False
_logged: set[str] = set()
_DETECTORS = Path(__file__).resolve().parent / "detectors"
#: Files outside ``detectors/`` whose numba code is compiled with ``cache=True``.
_EXTRA_SOURCES = (Path(__file__).resolve().parent / "synthetic.py",
                  Path(__file__).resolve().parent / "warmup" / "_kernels.py",
                  Path(__file__).resolve().parent / "warmup" / "_pelt_vec.py")


def simd_enabled() -> bool:
    """False when ``SEGVIEW_NO_SIMD`` asks for the plain paths (read at every call)."""
    return os.environ.get(NO_SIMD_ENV, "").strip().lower() not in ("1", "true", "yes", "on")


def _uses_numba(text: str) -> bool:
    return "numba" in text or "njit" in text


def kernel_sources() -> list[Path]:
    """The source files of segview's numba code: every module of ``detectors/`` that mentions
    numba or ``njit`` (:func:`segview.core.lazy.lazy_njit`), and :data:`_EXTRA_SOURCES`."""
    files = [p for p in sorted(_DETECTORS.glob("*.py"))
             if _uses_numba(p.read_text(encoding="utf-8", errors="replace"))]
    return files + [p for p in _EXTRA_SOURCES if p.exists()]


def cache_key() -> str:
    """``<segview version>-<12 hex digits of a hash of the version and the kernel sources>``."""
    from segview import __version__

    h = hashlib.sha256(__version__.encode())
    for path in kernel_sources():
        h.update(path.name.encode() + b"\0")
        h.update(path.read_bytes())
    return f"{__version__}-{h.hexdigest()[:12]}"


def numba_cache_dir() -> Path:
    """The folder :func:`configure` gives numba's on-disk cache."""
    from .diskmemo import user_cache_dir

    return user_cache_dir() / "numba" / cache_key()


def configure() -> None:
    """Set numba's cache folder and threading layer (see the module docstring) unless the user set
    them. Idempotent and cheap after the first call (which hashes the kernel sources, about a
    millisecond). Never raises: a failure leaves numba's defaults."""
    global _configured
    if _configured:
        return
    with _CONFIG_LOCK:
        if _configured:
            return
        try:
            if not os.environ.get("NUMBA_CACHE_DIR"):
                os.environ["NUMBA_CACHE_DIR"] = str(numba_cache_dir())
            if not os.environ.get("NUMBA_THREADING_LAYER"):
                os.environ["NUMBA_THREADING_LAYER"] = THREADING_LAYER
            import sys

            config: Any = sys.modules.get("numba.core.config")  # a module numba fills at import
            if config is not None:  # numba imported before us: its config read the old environment
                config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
                config.THREADING_LAYER = os.environ["NUMBA_THREADING_LAYER"]
        except Exception:  # noqa: BLE001 - an unwritable home must not stop a detector
            log.debug("numba configuration failed; numba's defaults apply", exc_info=True)
        _configured = True


_COMPILING = threading.local()  # .ctx: the RunContext of this thread's cancellable compiles
_COMPILE_CHECK: list[Any] = []  # the numba listener, registered once a process


def watch_compiles() -> None:
    """Register the numba compile listener of :func:`cancellable_compiles` (once a process).
    Called where segview imports numba (:mod:`.detectors._jit`, :mod:`.lazy`): it imports
    ``numba.core.event``."""
    if _COMPILE_CHECK:
        return
    from numba.core import event

    class _CheckCancelled(event.Listener):
        def on_start(self, ev: Any) -> None:
            current = getattr(_COMPILING, "ctx", None)
            if current is not None:
                current.check()

        def on_end(self, ev: Any) -> None:
            pass

    with _CONFIG_LOCK:
        if not _COMPILE_CHECK:
            listener = _CheckCancelled()
            event.register("numba:compile", listener)
            _COMPILE_CHECK.append(listener)


@contextlib.contextmanager
def cancellable_compiles(ctx: Any) -> Iterator[None]:
    """Inside the block, a numba compilation this thread starts (a kernel's first call, and each
    callee compiled for it) first checks ``ctx`` (:meth:`~.context.RunContext.check`): once it is
    cancelled, the compilation stops with :class:`~.errors.Cancelled` instead of running on for
    seconds (tens of seconds for the first warm-up analysis of a process) that nobody waits for.

    For work run in a thread of the calling process (a worker process does the same through its
    progress reports, :mod:`segview.core.workers.runner`); :func:`fast_or_plain` lets the
    cancellation through. Entering the block imports nothing: the listener is registered when
    numba is (:func:`watch_compiles`)."""
    import sys

    if "numba" in sys.modules:  # imported some other way than segview's kernels
        watch_compiles()
    previous = getattr(_COMPILING, "ctx", None)
    _COMPILING.ctx = ctx
    try:
        yield
    finally:
        _COMPILING.ctx = previous


@contextlib.contextmanager
def parallel_launch() -> Iterator[None]:
    """Hold :data:`PARALLEL_LOCK` around the launch of a ``parallel=True`` kernel."""
    with PARALLEL_LOCK:
        yield


def is_kernel_failure(exc: BaseException) -> bool:
    """Whether ``exc`` comes from numba or llvmlite themselves (compiling, linking, loading a
    kernel) rather than from segview's code or the data: its class is defined in numba or
    llvmlite, or numba's or llvmlite's Python code is on its traceback. An exception raised while
    a compiled kernel runs passes through no Python frame of numba and is not one; nor is one of
    segview's own errors raised from a callback numba runs while it compiles (a progress report
    that finds the run cancelled raises :class:`~.errors.Cancelled` through numba's frames)."""
    from .errors import SegviewError

    if isinstance(exc, SegviewError):
        return False
    if type(exc).__module__.split(".")[0] in ("numba", "llvmlite"):
        return True
    if isinstance(exc, ImportError) and (exc.name or "").split(".")[0] in ("numba", "llvmlite"):
        return True
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        parts = Path(frame.f_code.co_filename).parts
        if "numba" in parts or "llvmlite" in parts:
            return True
    return False


def fast_or_plain(fast: Callable[[], T], plain: Callable[[], T], what: str
                  ) -> tuple[T, str | None]:
    """``(fast(), None)``, or ``(plain(), note)`` when numba or LLVM fails on ``fast``
    (:func:`is_kernel_failure`); any other exception (e.g. :class:`~.errors.Cancelled`)
    propagates. ``plain`` must compute the same result exactly; ``what`` names the fast path in
    the note. The first failure of each ``what`` is logged (with its traceback) once a process."""
    try:
        return fast(), None
    except Exception as exc:  # noqa: BLE001 - filtered just below
        if not is_kernel_failure(exc):
            raise
        summary = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
        note = (f"{what} failed to compile or load ({summary[:200]}); the plain exact path "
                "ran instead (same result, slower)")
        if what not in _logged:
            _logged.add(what)
            log.warning("segview: %s", note, exc_info=exc)
        return plain(), note
