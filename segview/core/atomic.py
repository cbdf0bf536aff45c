"""Output files that are whole or absent: every file segview writes goes through here.

A file is written to a temporary name in its own folder (``.NAME.tmp-PID-RANDOM``), flushed and
fsync'ed, then renamed over the final name in one step: a full disk, a kill or an exception never
leaves a cut file under the final name, and an existing file keeps its old content until the new
one is complete. On any error the temporary file is removed and an :class:`OutputError` names the
*final* file. Files are created with the permissions the umask gives (0644 under umask 022), as a
plain ``open(path, "w")`` would.

Export folders use the same scheme for whole folders (:func:`make_temp_dir`, renamed by the
caller); :func:`sweep_stale` removes what a killed process left behind (its pid is in the name and
no longer runs).
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .errors import OutputError

__all__ = ["atomic_path", "atomic_open", "write_text", "write_bytes", "make_temp_dir",
           "sync_tree", "fsync_dir", "sweep_stale", "output_error"]


def output_error(path: str | os.PathLike[str], err: BaseException) -> OutputError:
    """``err`` (an OSError, usually) as an :class:`OutputError` naming ``path``."""
    if isinstance(err, OSError):
        reason = err.strerror or str(err)
        if err.errno == errno.ENOSPC:
            reason = "no space left on device"
    else:
        reason = str(err) or type(err).__name__
    return OutputError(str(path), f"cannot be written ({reason}); nothing was written under "
                                  "this name")


def _temp_name(final: Path, kind: str) -> Path:
    # a file keeps its extension last: writers that pick the format by it (Qt's image writer)
    tail = final.suffix if kind == "tmp" else ""
    return final.with_name(f".{final.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}{tail}")


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Make a rename durable (POSIX); not possible (nor needed) on Windows."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], durable: bool = True) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` for a writer that wants a file name (pyarrow,
    pandas); on success the file is fsync'ed and renamed to ``path``.

    ``durable=False`` leaves out the fsync: for files of a staging folder that is synced as a
    whole (:func:`sync_tree`) before it is renamed into place.

    Raises:
        OutputError: the file could not be written (the temporary file is removed).
    """
    final = Path(path)
    sweep_stale(final.parent, final.name, "tmp")
    tmp = _temp_name(final, "tmp")
    try:
        # created here (O_EXCL), with the umask's permissions, so that the writer finds it
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        _keep_mode(final, tmp)
        yield tmp
        if durable:
            _fsync_file(tmp)
        os.replace(tmp, final)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise output_error(final, err) from err
        raise
    if durable:
        fsync_dir(final.parent)


def _keep_mode(final: Path, tmp: Path) -> None:
    """A file replaced keeps its permissions (a private file stays private)."""
    try:
        st = os.stat(final)
    except OSError:
        return
    if stat.S_ISREG(st.st_mode):
        with contextlib.suppress(OSError):
            os.chmod(tmp, stat.S_IMODE(st.st_mode))


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", durable: bool = True,
                **kwargs: Any) -> Iterator[IO[Any]]:
    """``open(path, mode, **kwargs)`` that writes ``path`` whole or not at all (``mode`` "w" or
    "wb"); flushed and fsync'ed before the rename (``durable=False``: see :func:`atomic_path`)."""
    if mode not in ("w", "wb", "wt"):
        raise ValueError(f"atomic_open writes new files only, not mode {mode!r}")
    with atomic_path(path, durable=durable) as tmp:
        with open(tmp, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8",
               newline: str | None = None, durable: bool = True) -> None:
    """``Path(path).write_text(text)``, whole or absent."""
    with atomic_open(path, "w", durable=durable, encoding=encoding, newline=newline) as fh:
        fh.write(text)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """``Path(path).write_bytes(data)``, whole or absent."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)


def sync_tree(folder: str | os.PathLike[str]) -> None:
    """Make every file below ``folder`` durable before the folder is renamed into place: one
    ``sync()`` of the system where there is one (an export of thousands of files would otherwise
    pay one fsync each, three times the whole export's time), else an fsync per file."""
    if hasattr(os, "sync"):
        os.sync()
        return
    for root, _, names in os.walk(folder):
        for name in names:
            _fsync_file(Path(root) / name)


def make_temp_dir(final: str | os.PathLike[str]) -> Path:
    """A new hidden folder beside ``final`` (``.NAME.partial-PID-RANDOM``) with the umask's
    permissions, like the files written into it (``tempfile.mkdtemp`` makes 0700 folders)."""
    final = Path(final)
    sweep_stale(final.parent, final.name, "partial")
    for _ in range(100):
        tmp = _temp_name(final, "partial")
        try:
            os.mkdir(tmp, 0o777)
            return tmp
        except FileExistsError:
            continue
    raise output_error(final, FileExistsError(errno.EEXIST, "no free temporary name"))


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process: leave its files alone
    return True


def sweep_stale(folder: str | os.PathLike[str], name: str, kind: str) -> list[Path]:
    """Remove ``.NAME.KIND-PID-RANDOM`` files or folders in ``folder`` whose process no longer
    runs (left by a SIGKILL, a power cut); returns what was removed. Errors are ignored: a sweep
    never stops a write."""
    tail = re.escape(Path(name).suffix) if kind == "tmp" else ""
    pattern = re.compile(rf"^\.{re.escape(name)}\.{re.escape(kind)}-(\d+)-[0-9a-f]+{tail}$")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry.name)
        if not m or _pid_alive(int(m.group(1))):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            pass
    return removed
