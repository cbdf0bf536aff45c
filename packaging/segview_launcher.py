"""Entry point for frozen builds (PyInstaller cannot start a package's ``__main__`` with relative
imports)."""
import multiprocessing
import os
import sys
import tempfile
from pathlib import Path


def _private_dir(folder: Path) -> bool:
    """Create ``folder`` if needed; True if it is writable and (POSIX) owned by us, not shared."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.stat()
    except OSError:
        return False
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
        return False  # numba's cache files are pickles: never load them from a folder others write
    return os.access(folder, os.W_OK)


def _use_per_user_numba_cache() -> None:
    """Point numba's on-disk kernel cache (``cache=True``) at ``<segview cache>/numba``.

    Without this, a frozen app caches in numba's own user folder under a name derived from the
    current working directory: each new working directory compiles every kernel again, one that
    holds a segview checkout gets the frozen app's cache files in its ``__pycache__``, and an
    unwritable user cache folder makes importing the detectors fail. A per-user temporary folder
    is the fallback; an explicit ``NUMBA_CACHE_DIR`` is left alone.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    from segview.core.diskmemo import user_cache_dir  # does not import numba

    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    for folder in (user_cache_dir() / "numba",
                   Path(tempfile.gettempdir()) / f"segview-numba-{user}"):
        if _private_dir(folder):
            os.environ["NUMBA_CACHE_DIR"] = str(folder)  # inherited by the worker processes
            return


if __name__ == "__main__":
    # First: a spawned detector worker re-runs this executable; this turns it into the worker.
    multiprocessing.freeze_support()

    _use_per_user_numba_cache()  # before anything imports numba

    from segview.cli.main import main

    sys.exit(main())
