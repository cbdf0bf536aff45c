"""The export manifest ``metadata.json``: its schema, checked before anything in it is used, and
the confinement of every path it names to the export folder.

An export folder may come from anyone (a colleague, a download), so its manifest is input like any
other file: a missing or mistyped key is a :class:`~segview.core.errors.DataFormatError` naming the
manifest and the place (``items[3].file``), never a traceback; and a file it names must lie inside
the folder. Absolute paths, ``..`` and symbolic links leading out of the folder are refused
*before* the file is opened or even stat-ed, so a crafted manifest can neither read another file
nor learn whether one exists.
"""
from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from ..errors import DataFormatError
from ..strictjson import DuplicateKeyError, strict_object

PROTOCOLS = ("steady_state", "change_points")
MAX_LINKS = 40  # symbolic links followed in one path, as the kernel's ELOOP limit


def read_manifest(path: Path) -> dict[str, Any]:
    """The parsed manifest (JSON object); DataFormatError when it is not readable JSON."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as err:
        raise DataFormatError(str(path), f"cannot be read ({err})") from None
    try:
        meta = json.loads(text, object_pairs_hook=strict_object)
    except DuplicateKeyError as err:
        raise DataFormatError(str(path), f"is not valid: key {err.key!r} appears twice in one "
                                         "object (which value is meant is unknown)") from None
    except json.JSONDecodeError as err:
        raise DataFormatError(str(path), f"is not valid JSON ({err.msg})",
                              f"line {err.lineno}, column {err.colno}") from None
    except (ValueError, RecursionError) as err:
        raise DataFormatError(str(path), f"is not valid JSON ({err})") from None
    if not isinstance(meta, dict):
        raise DataFormatError(str(path), f"expected a JSON object, got {_kind(meta)}")
    return meta


def _kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false",
            type(None): "null", int: "a number", float: "a number"}.get(type(v), type(v).__name__)


class _Checker:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, reason: str) -> DataFormatError:
        return DataFormatError(str(self.path), reason, where)

    def get(self, obj: dict[str, Any], key: str, where: str, types: tuple[type, ...], what: str,
            required: bool = True) -> Any:
        place = f"{where}.{key}" if where else key
        if key not in obj:
            if required:
                raise self.fail(place, "missing")
            return None
        v = obj[key]
        if v is None and not required:
            return None
        if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
            raise self.fail(place, f"expected {what}, got {_kind(v)}")
        return v


def validate_manifest(meta: dict[str, Any], path: Path, formats: tuple[str, ...]) -> None:
    """Check the keys segview reads (types and presence) and return nothing; raises
    DataFormatError naming ``path`` and the place otherwise. Paths are checked separately
    (:func:`confine`), once the folder is known."""
    c = _Checker(path)
    fmt = c.get(meta, "format", "", (str,), "a string")
    if fmt not in formats:
        raise c.fail("format", f"unknown export format {fmt!r}")
    session = c.get(meta, "session", "", (dict,), "an object")
    protocol = c.get(session, "protocol", "session", (str,), "a string")
    if protocol not in PROTOCOLS:
        raise c.fail("session.protocol", f"must be one of {', '.join(PROTOCOLS)}, got "
                                         f"{protocol!r}")
    c.get(session, "name", "session", (str,), "a string", required=False)
    items = c.get(meta, "items", "", (list,), "a list")
    seen: set[str] = set()
    for k, it in enumerate(items):
        where = f"items[{k}]"
        if not isinstance(it, dict):
            raise c.fail(where, f"expected an object, got {_kind(it)}")
        sid = c.get(it, "series_id", where, (str,), "a string")
        if sid in seen:
            raise c.fail(f"{where}.series_id", f"series {sid!r} is listed twice")
        seen.add(sid)
        c.get(it, "file", where, (str,), "a string")
        c.get(it, "content_hash", where, (str,), "a string")
        c.get(it, "source", where, (str,), "a string", required=False)
        c.get(it, "n_samples", where, (int,), "a whole number", required=False)
        dims = c.get(it, "dims", where, (list,), "a list of names", required=False)
        if dims is not None and (not dims or not all(isinstance(d, str) for d in dims)):
            raise c.fail(f"{where}.dims", "expected a non-empty list of names")
    hashes = c.get(meta, "file_hashes", "", (dict,), "an object", required=False)
    for name, digest in (hashes or {}).items():
        if not isinstance(digest, str):
            raise c.fail(f"file_hashes[{name!r}]", f"expected a SHA-256 string, got "
                                                   f"{_kind(digest)}")
    judges = c.get(meta, "judges", "", (list,), "a list", required=False)
    for k, j in enumerate(judges or []):
        where = f"judges[{k}]"
        if not isinstance(j, dict):
            raise c.fail(where, f"expected an object, got {_kind(j)}")
        c.get(j, "name", where, (str,), "a string")
        c.get(j, "role", where, (str,), "a string", required=False)
        c.get(j, "seed", where, (int,), "a whole number", required=False)
        assigned = c.get(j, "assigned", where, (list,), "a list of series ids", required=False)
        if assigned is not None and not all(isinstance(a, str) for a in assigned):
            raise c.fail(f"{where}.assigned", "expected a list of series ids")


def confine(folder: Path, name: Any, manifest: Path, where: str) -> Path:
    """The file ``name`` (relative, ``/``-separated) of the export ``folder``, with every symbolic
    link on the way resolved, as a path that follows no link; DataFormatError when it would lead
    outside the folder.

    Nothing outside the folder is ever touched: ``..`` and absolute names are refused by their
    text, and a link is read (``readlink``, never followed) and its target checked the same way,
    component by component, before anything below it is looked at.
    """
    def refuse(reason: str) -> DataFormatError:
        return DataFormatError(str(manifest), f"{name!r} {reason}; files of an export must lie "
                                              "inside its folder", where)

    if not isinstance(name, str) or not name.strip() or "\0" in name:
        raise DataFormatError(str(manifest), "expected a file name inside the export folder",
                              where)
    root = os.path.realpath(folder)
    todo = _parts(name, refuse)
    cur, links = root, 0
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if cur == root:
                raise refuse("leads out of the export folder")
            cur = os.path.dirname(cur)
            continue
        nxt = os.path.join(cur, part)
        if not os.path.islink(nxt):  # lstat of a path inside the folder
            cur = nxt
            continue
        links += 1
        if links > MAX_LINKS:
            raise refuse("has too many levels of symbolic links")
        target = os.readlink(nxt)
        if os.path.isabs(target):
            rel = os.path.relpath(os.path.normpath(target), root)
            if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
                raise refuse("is a symbolic link out of the export folder")
            cur, todo = root, _parts(rel, refuse) + todo
        else:
            todo = _parts(target, refuse, allow_up=True) + todo
    return Path(cur)


def _parts(name: str, refuse: Any, allow_up: bool = False) -> list[str]:
    if PureWindowsPath(name).drive or PureWindowsPath(name).root or name.startswith("/"):
        raise refuse("is an absolute path")
    parts = list(PurePosixPath(name.replace("\\", "/")).parts)
    if not allow_up and ".." in parts:
        raise refuse("leads out of the export folder")
    return parts
