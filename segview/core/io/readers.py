"""Reader registry: each file format declares its name, extensions, a content sniffer and a reader.

The GUI builds its "Open" filters from this registry and the CLI its ``--format`` help; new formats
(Extra-P text, TCPD JSON) register themselves the same way.
"""
from __future__ import annotations

from collections.abc import Callable
import codecs
from dataclasses import dataclass
import bz2
import gc
import errno
import gzip
import io
import json
import os
from pathlib import Path
import stat
import threading
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import DataFormatError
from ..strictjson import DuplicateKeyError, strict_object
from ..model import Series

_NUMBER_TYPES = frozenset((int, float))


class bulk_objects:  # noqa: N801  (used as a function: ``with bulk_objects():``)
    """Pause the cyclic garbage collector while a reader makes many small objects.

    A file of a million forks makes millions of lists, dicts and Series; each few hundred new
    objects start a collection that walks every object alive, so the load time grew with the
    square of the fork count (half of a 15 s load). These objects form no cycles, so nothing is
    left for the collector; its previous state is restored on the way out. (A class, not a
    generator: a folder load enters it once per file.)"""

    __slots__ = ("_was",)

    def __enter__(self) -> None:
        self._was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was:
            gc.enable()


def finite_floats(values: list[Any]) -> NDArray[np.float64] | None:
    """``values`` as float64 when every entry is a finite JSON number (not a bool), else None.

    Vectorised: one C-level pass over the entry types and one ``np.isfinite``; callers run their
    own per-value loop only on None, to name the offending value and its index.
    """
    if not set(map(type, values)) <= _NUMBER_TYPES:
        return None
    try:
        arr = np.array(values, dtype=np.float64)
    except OverflowError:
        return None
    if not np.isfinite(arr).all():
        return None
    return arr


@dataclass(frozen=True)
class Reader:
    """A file format.

    Attributes:
        name: short identifier (``jmh``, ``csv``...).
        label: menu text, e.g. ``"JMH fork list (*.json)"``.
        extensions: lower-case suffixes with the dot.
        sniff: ``sniff(head)`` -> True when the first few KiB of text look like this format.
        read: ``read(path)`` -> list of Series; raises DataFormatError naming file and place.
        priority: higher wins when several readers accept a file.
        options: keyword options ``read`` accepts (e.g. ``fill_missing`` for TCPD), passed on by
            ``load(path, **options)``.
        harness: the benchmark harness that writes this format (``""`` for generic tables).
        example: a short example of the file's content (``segview formats`` shows it).
        checked: the harness/format version the reader was checked against.
        fallback: whether the reader may take a file of its extension that no reader's sniff
            accepted, to produce a precise error (the generic readers: ``jmh`` for ``.json``,
            ``csv``); a harness reader with a specific sniff sets False, so a high priority does
            not make it the reader of every unrecognised file.
    """

    name: str
    label: str
    extensions: tuple[str, ...]
    sniff: Callable[[str], bool]
    read: Callable[[Path], list[Series]]
    priority: int = 0
    options: tuple[str, ...] = ()
    harness: str = ""
    example: str = ""
    checked: str = ""
    fallback: bool = True


class NotSeriesFile(DataFormatError):
    """The file is a known non-series companion (a labels table, export metadata, a TCPD
    annotations file): folder loads skip it silently; loading it on its own is an error."""


_READERS: dict[str, Reader] = {}


def register_reader(reader: Reader) -> Reader:
    if reader.name in _READERS:
        raise ValueError(f"reader {reader.name!r} already registered")
    _READERS[reader.name] = reader
    return reader


#: the registry's readers in sniffing order and per extension, computed once per state of the
#: registry (a folder of 20,000 files sorted the same list 20,000 times); keyed by the registered
#: readers themselves, so registering or removing one (tests do) is seen at once
_ORDER: dict[str, Any] = {"key": None, "sorted": [], "by_ext": {}}


def _ordered() -> dict[str, Any]:
    if _ORDER["key"] is None:
        from . import _builtin  # noqa: F401  (fills the registry)
    key = tuple(_READERS.values())
    if _ORDER["key"] != key:
        _ORDER.update(key=key, sorted=sorted(key, key=lambda r: (-r.priority, r.name)), by_ext={})
    return _ORDER


def all_readers() -> list[Reader]:
    return list(_ordered()["sorted"])


def _readers_for_suffix(suffix: str) -> tuple[list[Reader], list[Reader], list[Reader]]:
    """All readers (sniffing order), those of ``suffix`` (same order), and the fallback readers
    of ``suffix`` (registration order)."""
    order = _ordered()
    found = order["by_ext"].get(suffix)
    if found is None:
        readers = order["sorted"]
        found = (readers, [r for r in readers if suffix in r.extensions],
                 [r for r in order["key"] if suffix in r.extensions and r.fallback])
        order["by_ext"][suffix] = found
    return found


def max_file_bytes() -> int:
    """The largest file segview reads (``$SEGVIEW_MAX_FILE_MB``, default 4096 MB)."""
    try:
        return int(float(os.environ.get("SEGVIEW_MAX_FILE_MB", "4096")) * 2**20)
    except ValueError:
        return 4096 * 2**20


def check_regular(path: Path) -> int:
    """The size of ``path`` after checking it is a regular file within the size limit.

    A FIFO, socket or device would block or never end, so it is refused before it is opened.
    Inside :func:`opened` for ``path`` the status read there is used (no second ``stat``).

    Raises:
        DataFormatError: not a regular file, unreadable, or larger than :func:`max_file_bytes`.
    """
    snap = _snapshot(path)
    if snap is not None:
        return _check_stat(path, snap.st, snap.limit)
    try:
        st = os.stat(path)
    except OSError as err:
        raise DataFormatError(str(path), f"cannot be read ({err.strerror or err})") from err
    return _check_stat(path, st, max_file_bytes())


def _check_stat(path: Path, st: os.stat_result, limit: int) -> int:
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a pipe, socket or device)"
        raise DataFormatError(str(path), f"is {kind}; segview reads regular files only")
    if st.st_size > limit:
        raise DataFormatError(str(path), f"is {st.st_size / 2**20:.0f} MB, above the {limit / 2**20:.0f} MB "
                                         "limit (set SEGVIEW_MAX_FILE_MB to raise it)")
    return st.st_size


#: files up to this size are read into memory once by :func:`opened`; larger ones are read by
#: their readers as before (mapped, in chunks)
SNAPSHOT_MAX_BYTES = 1 << 20

_LOCAL = threading.local()


class _Snapshot:
    """One file's status and (when small) bytes, shared by the size check, the sniffing and the
    reader during one :func:`opened` block of the thread that made it."""

    __slots__ = ("key", "st", "limit", "raw")

    def __init__(self, key: str, st: os.stat_result, limit: int, raw: bytes | None) -> None:
        self.key, self.st, self.limit, self.raw = key, st, limit, raw


def _snapshot(path: "str | os.PathLike[str]") -> _Snapshot | None:
    snap: _Snapshot | None = getattr(_LOCAL, "snap", None)
    if snap is not None and snap.key == os.fspath(path):
        return snap
    return None


def stat_existing(path: "str | os.PathLike[str]") -> os.stat_result | None:
    """``os.stat(path)``, or None where :meth:`pathlib.Path.exists` says False (no such file, a
    path through a non-folder, a symlink loop, a path the system cannot encode); other errors
    (a folder without permission) are raised as ``exists`` raises them. One system call where
    ``exists()`` and ``is_dir()`` made two (inside :func:`opened`, none)."""
    snap = _snapshot(path)
    if snap is not None:
        return snap.st
    try:
        return os.stat(path)
    except OSError as err:
        if err.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP) or \
                getattr(err, "winerror", None) in (21, 123, 1921):
            return None
        raise
    except ValueError:
        return None


class opened:  # noqa: N801  (used as a function: ``with opened(path):``)
    """Read a small file once for everything that reads it in this block (this thread only).

    A folder of 20,000 small files spent more time opening each file three or four times (the
    size check, the sniffer's head, the reader's text, the bulk path's size check) than parsing
    it. Inside the block, :func:`check_regular`, :func:`read_head` and :func:`read_text` of
    ``path`` use one ``stat`` (``st`` when the caller has it) and, for a regular file of at most
    :data:`SNAPSHOT_MAX_BYTES`, one read of its bytes; they return and raise exactly what they do
    outside it. A file that cannot be stat'ed or read here is left to them (they name the
    problem). Nested blocks for the same path share the outer one's read. (A class, not a
    generator: it runs once per file.)"""

    __slots__ = ("_path", "_st", "_prev", "_set")

    def __init__(self, path: "str | os.PathLike[str]", st: os.stat_result | None = None) -> None:
        self._path, self._st = path, st
        self._prev: _Snapshot | None = None
        self._set = False

    def __enter__(self) -> None:
        key = os.fspath(self._path)
        prev: _Snapshot | None = getattr(_LOCAL, "snap", None)
        if prev is not None and prev.key == key:
            return
        st = self._st
        if st is None:
            try:
                st = os.stat(key)
            except (OSError, ValueError):
                return  # the readers' own calls name the problem
        limit = max_file_bytes()
        raw = None
        if stat.S_ISREG(st.st_mode) and st.st_size <= min(SNAPSHOT_MAX_BYTES, limit):
            try:
                with open(key, "rb") as fh:
                    raw = fh.read(SNAPSHOT_MAX_BYTES + 1)
            except OSError:
                raw = None  # the readers' own opens report it as before
            if raw is not None and len(raw) > SNAPSHOT_MAX_BYTES:
                raw = None  # grew meanwhile: read as a large file
        self._prev, self._set = prev, True
        _LOCAL.snap = _Snapshot(key, st, limit, raw)

    def __exit__(self, *exc: object) -> None:
        if self._set:
            _LOCAL.snap = self._prev


GZIP_MAGIC = b"\x1f\x8b"


def _open_raw(path: Path, raw: bytes | None) -> Any:
    """A binary file object over ``raw`` (a snapshot's bytes) or over the file itself."""
    return io.BytesIO(raw) if raw is not None else open(path, "rb")


def _read_bytes(path: Path, size: int, raw: bytes | None = None) -> bytes:
    """Up to ``size`` bytes of ``path`` (or of its snapshot's bytes ``raw``); a gzip-compressed
    file (pyperf writes ``.json.gz``) is decompressed on the fly, by its magic bytes, not its
    name."""
    with _open_raw(path, raw) as fh:
        if fh.read(2) != GZIP_MAGIC:
            fh.seek(0)
            return fh.read(size)
        fh.seek(0)
        with gzip.GzipFile(fileobj=fh) as gz:
            return gz.read(size)


#: byte-order marks of the encodings read besides UTF-8 (UTF-32 first: its LE mark begins with
#: UTF-16's). Spreadsheet programs ("Unicode text") and PowerShell write UTF-16 with a BOM.
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _encoding(raw: bytes) -> str:
    """``utf-16``/``utf-32`` when ``raw`` starts with their byte-order mark, else ``utf-8-sig``."""
    for bom, name in _BOMS:
        if raw.startswith(bom):
            return name
    return "utf-8-sig"


def read_head(path: Path, size: int = 4096) -> str:
    check_regular(path)
    snap = _snapshot(path)
    raw_file = snap.raw if snap is not None else None
    try:
        raw = _read_bytes(path, size, raw_file)
    except (OSError, EOFError) as err:  # gzip.BadGzipFile is an OSError
        raise DataFormatError(str(path), f"cannot be read ({getattr(err, 'strerror', None) or err})"
                              ) from err
    if raw[:3] == b"BZh":  # a bzip2 file (Krun's .json.bz2 results): sniff its text
        raw = _bz2_head(path, size, raw=raw_file)
        if not raw:
            raise DataFormatError(str(path), "is not a complete bzip2 file: its first block is cut "
                                             "or corrupt (a file still being written?)")
    encoding = _encoding(raw)
    if encoding == "utf-8-sig" and b"\x00" in raw:  # UTF-16/32 text holds NULs; binary files too
        raise DataFormatError(str(path), "is a binary file, not a series file")
    return raw.decode(encoding, errors="replace").lstrip("\ufeff")


def _bz2_head(path: Path, size: int, limit: int = 4 * 2**20, raw: bytes | None = None) -> bytes:
    """The first ``size`` decompressed bytes of a bzip2 file (or of its snapshot's bytes
    ``raw``). bzip2 yields text a whole block (up to 900 kB) at a time, so up to ``limit``
    compressed bytes are read; a file that is not valid bzip2 there gives b"" (its reader names
    the problem)."""
    dec = bz2.BZ2Decompressor()
    out = b""
    try:
        with _open_raw(path, raw) as fh:
            read = 0
            while len(out) < size and read < limit and not dec.eof:
                chunk = fh.read(65536)
                if not chunk:
                    break
                read += len(chunk)
                out += dec.decompress(chunk, max_length=size - len(out))
                while len(out) < size and not dec.needs_input and not dec.eof:
                    more = dec.decompress(b"", max_length=size - len(out))
                    if not more:
                        break
                    out += more
    except (OSError, EOFError, ValueError):
        return out
    return out[:size]


def _decode_text(raw: bytes, encoding: str) -> str:
    """``raw`` decoded as text mode reads a file: the byte-order mark dropped, ``\\r\\n`` and
    ``\\r`` read as ``\\n`` (what ``Path.read_text`` gives for the same bytes)."""
    text = raw.decode(encoding)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_text(path: Path) -> str:
    """A text file's content (UTF-8, or UTF-16/UTF-32 with a byte-order mark; BOM dropped;
    gzip-compressed files are decompressed, within :func:`max_file_bytes`); DataFormatError names
    the file."""
    check_regular(path)
    snap = _snapshot(path)
    raw_file = snap.raw if snap is not None else None
    try:
        if raw_file is not None:
            start = raw_file[:4]
            if start[:2] != GZIP_MAGIC:
                return _decode_text(raw_file, _encoding(start))
        else:
            with open(path, "rb") as fh:
                start = fh.read(4)
            if start[:2] != GZIP_MAGIC:
                return Path(path).read_text(encoding=_encoding(start))
        limit = max_file_bytes()
        chunks, total = [], 0
        with _open_raw(path, raw_file) as fh, gzip.GzipFile(fileobj=fh) as gz:
            # in chunks: no buffer of the whole limit up front
            while chunk := gz.read(1 << 22):
                total += len(chunk)
                if total > limit:
                    raise DataFormatError(str(path), f"decompresses to more than the "
                                                     f"{limit / 2**20:.0f} MB limit (set "
                                                     "SEGVIEW_MAX_FILE_MB to raise it)")
                chunks.append(chunk)
        raw = b"".join(chunks)
        return raw.decode(_encoding(raw[:4]))
    except MemoryError:
        raise DataFormatError(str(path), "out of memory while reading this file (it is too large "
                                         "to hold in memory)") from None
    except (OSError, EOFError, UnicodeDecodeError) as err:
        raise DataFormatError(str(path), f"cannot be read ({err})") from err


_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=strict_object)


def loads_strict(text: str, source: str) -> Any:
    """``json.loads`` with duplicate keys refused; every failure is a DataFormatError naming
    ``source`` (invalid JSON with line and column, a repeated key by name)."""
    try:
        if type(text) is str and not text.startswith("\ufeff"):
            # json.loads(text, object_pairs_hook=...) without a new JSONDecoder per call
            return _STRICT_DECODER.decode(text)
        return json.loads(text, object_pairs_hook=strict_object)
    except DuplicateKeyError as err:
        raise DataFormatError(source, f"invalid JSON: key {err.key!r} appears twice in one object "
                                      "(which value is meant is unknown)") from None
    except json.JSONDecodeError as err:
        raise DataFormatError(source, f"invalid JSON: {err.msg}",
                              f"line {err.lineno}, column {err.colno}") from err
    except RecursionError:
        raise DataFormatError(source, "invalid JSON: nested too deeply") from None
    except ValueError as err:  # e.g. an integer literal of thousands of digits
        raise DataFormatError(source, f"invalid JSON: {err}") from None


def read_json(path: Path) -> Any:
    """A JSON file's content; an empty or invalid file raises DataFormatError with line/column,
    and a key repeated within one object is an error naming the key (:func:`strict_object`)."""
    text = read_text(path)
    if not text.strip():
        raise DataFormatError(str(path), "the file is empty")
    return loads_strict(text, str(path))


def json_object(parent: Any, key: str) -> dict[str, Any]:
    """``parent[key]`` when it is a JSON object, else an empty dict: an optional section of a
    JSON document (``parent`` is a JSON object)."""
    v = parent.get(key)
    return v if isinstance(v, dict) else {}


def reader_for(path: Path) -> Reader:
    """Pick the reader by extension, then by content.

    Raises:
        DataFormatError: no reader accepts the file.
    """
    head = read_head(path)
    if not head.strip():
        raise DataFormatError(str(path), "the file is empty")
    suffix = path.suffix.lower()
    readers, by_ext, fallbacks = _readers_for_suffix(suffix)
    for r in by_ext:
        if r.sniff(head):
            return r
    # A known extension whose content no reader recognised: the extension's first registered
    # fallback reader (the general one: JMH fork lists for .json, tables for .csv) names the
    # problem; a content-specific harness reader would only say "not my format".
    if fallbacks:
        return fallbacks[0]
    if by_ext:
        raise DataFormatError(str(path), f"not a file segview recognises ({suffix} files it reads: "
                                         f"{', '.join(r.label for r in by_ext)})")
    for r in readers:  # an unknown extension: go by content
        if r.sniff(head):
            return r
    known = ", ".join(sorted({e for r in readers for e in r.extensions}))
    raise DataFormatError(str(path), f"unknown file type {suffix or '(no extension)'!r}; "
                                     f"segview reads {known}")
