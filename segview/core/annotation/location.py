"""Which annotation database a name means: the one resolver for every way a database is named.

A database is named by ``--db`` / ``--db-url`` (``segview session``, ``segview annotate``), by
``$SEGVIEW_DB``, by the annotation window's session dialog, or by a library call ``Store(db)``.
All of them go through :func:`resolve_db`, so the same text always means the same database:

* ``scheme://...`` (any scheme: ``postgresql://``, ``postgresql+psycopg://``, ``sqlite:///``) is a
  database URL. ``postgresql://`` and ``postgres://`` use the psycopg 3 driver segview depends on.
  An unencoded ``@`` in the password (``postgresql://u:p@ss@host/db``) belongs to the password: the
  host is what follows the LAST ``@``.
* ``sqlite:///path`` follows SQLAlchemy's URL rules (``%XX`` escapes decoded); URL options after
  ``?`` are refused (segview sets SQLite's options itself), so a ``?`` is never silently dropped.
* Anything else is a file path, taken literally: ``q?x.sqlite`` and ``a%20b.sqlite`` are file
  names, never a URL query or escapes.
* Nothing (None or empty) is ``$SEGVIEW_DB`` (resolved by the same rules) or else the default file
  ``./segview-annotations.sqlite``.

Text that looks like a URL with a missing ``//`` (``postgresql:/u:pw@host/db``) is refused rather
than becoming a file of that name. What is shown of a location (:attr:`DatabaseLocation.display`)
never holds a password.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import InputError
from ..secrets import mask_url

DEFAULT_FILENAME = "segview-annotations.sqlite"
ENV_VAR = "SEGVIEW_DB"

_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*)://")
# a database scheme followed by ":" but without "//": a URL typed wrong, not a file name
_URLISH = re.compile(r"^(?P<scheme>(?:postgres(?:ql)?|sqlite|mysql|mariadb|oracle|mssql)"
                     r"(?:\+[A-Za-z0-9_]+)?):(?!//)", re.IGNORECASE)


class DatabaseNameError(InputError):
    """A database name that cannot be resolved (a malformed URL); the text shown is masked."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(source, reason)


@dataclass(frozen=True)
class DatabaseLocation:
    """A resolved database name.

    Attributes:
        url: the SQLAlchemy URL to connect to (may hold a password: never print it, use
            :attr:`display`). For a file it is ``sqlite:///`` + the absolute path, for messages
            only: the file itself is opened by :attr:`path`, literally.
        path: the SQLite file (absolute), or None for a server or an in-memory database.
        source: where the name came from (``--db``, ``$SEGVIEW_DB``, ``default``, ``argument``...).
        spec: text that resolves to this same location again (the path, or the URL).
        given: the name as it was given (a URL as typed; may hold a password), "" for the default.
    """

    url: str
    path: Path | None
    source: str
    spec: str
    given: str = ""

    @property
    def display(self) -> str:
        """What may be shown: the file path, or the URL with its password masked."""
        return str(self.path) if self.path is not None else mask_url(self.url)

    @property
    def is_sqlite(self) -> bool:
        return self.url.startswith("sqlite")

    @property
    def is_memory(self) -> bool:
        return self.is_sqlite and self.path is None


def default_db_path(folder: str | os.PathLike[str] | None = None) -> Path:
    """The default embedded database file: ``<folder or cwd>/segview-annotations.sqlite``.

    Without ``folder`` and with ``$SEGVIEW_DB`` naming a file, that file (absolute). A URL in
    ``$SEGVIEW_DB`` is not a file: use :func:`resolve_db` (which this defers to).
    """
    if folder is None:
        loc = resolve_db(None)
        if loc.path is not None:
            return loc.path
    return Path(folder or Path.cwd()) / DEFAULT_FILENAME


def _fix_userinfo(rest: str) -> str:
    """Percent-encode an unencoded ``@`` in the user/password part of ``user:pw@host/...`` (the
    host follows the last ``@`` before the path)."""
    cut = len(rest)
    for ch in "/?#":
        k = rest.find(ch)
        if k != -1:
            cut = min(cut, k)
    # a "/", "?" or "#" in a password must be percent-encoded (else no one can tell where the
    # host starts); such a URL is still masked whole in messages (secrets.py)
    at = rest.rfind("@", 0, cut)
    if at == -1:
        return rest
    userinfo = rest[:at]
    if "@" not in userinfo:
        return rest
    return userinfo.replace("@", "%40") + rest[at:]


def _from_url(text: str, scheme: str, source: str) -> DatabaseLocation:
    """The location of a database URL; ``scheme`` is its scheme as written (``_SCHEME``)."""
    scheme = scheme.lower()
    rest = text[text.index("://") + 3:]
    if scheme in ("postgresql", "postgres"):
        scheme = "postgresql+psycopg"
    if scheme == "sqlite" or scheme.startswith("sqlite+"):
        if rest in ("", "/:memory:"):
            return DatabaseLocation("sqlite://", None, source, "sqlite://")
        if not rest.startswith("/"):
            raise DatabaseNameError(source, f"{mask_url(text)}: a SQLite URL is sqlite:///FILE "
                                            "(three slashes), or give the file path itself")
        if "?" in rest or "#" in rest:
            raise DatabaseNameError(
                source, f"{mask_url(text)}: SQLite URL options after '?' are not supported "
                        "(segview sets them itself); to name a file with '?' or '#' in its name, "
                        "give the path without sqlite:///")
        from urllib.parse import unquote

        path = Path(unquote(rest[1:])).expanduser()
        path = path.resolve() if path.is_absolute() else (Path.cwd() / path).resolve()
        return DatabaseLocation(f"sqlite:///{path}", path, source, str(path))
    if "@" in rest:
        rest = _fix_userinfo(rest)
    if not rest.strip("/"):
        raise DatabaseNameError(source, f"{mask_url(text)}: the URL names no host or database")
    url = f"{scheme}://{rest}"
    return DatabaseLocation(url, None, source, url)


def resolve_db(db: str | os.PathLike[str] | None = None, *, source: str = "argument",
               environ: Mapping[str, str] | None = None) -> DatabaseLocation:
    """The database ``db`` names (see the module docstring for the rules).

    Args:
        db: a URL, a file path (``str`` or ``os.PathLike``: a path object is always a file), or
            None / ``""`` for ``$SEGVIEW_DB`` or the default file.
        source: how it was named, for messages (``--db``, ``dialog``...).
        environ: the environment to read ``$SEGVIEW_DB`` from (default ``os.environ``).

    Raises:
        DatabaseNameError: a malformed URL (its password masked in the message).
    """
    env = os.environ if environ is None else environ
    if isinstance(db, os.PathLike):
        path = Path(db).expanduser().resolve()
        return DatabaseLocation(f"sqlite:///{path}", path, source, str(path), str(db))
    text = "" if db is None else str(db).strip()
    if not text:
        named = str(env.get(ENV_VAR, "") or "").strip()
        if named:
            return resolve_db(named, source=f"${ENV_VAR}", environ={})  # given: the variable's text
        path = (Path.cwd() / DEFAULT_FILENAME).resolve()
        return DatabaseLocation(f"sqlite:///{path}", path, "default", str(path))
    if "\x00" in text:
        raise DatabaseNameError(source, "the database name holds a NUL character")
    match = _SCHEME.match(text)
    if match and len(match.group("scheme")) > 1:  # "C://x" is a Windows drive, not a scheme
        return replace(_from_url(text, match.group("scheme"), source), given=text)
    bad = _URLISH.match(text)
    if bad:
        raise DatabaseNameError(source, f"the database name starting with "
                                        f"{bad.group('scheme')!r}: looks like a URL without '//' "
                                        f"(write {bad.group('scheme')}://...); a file of such a "
                                        "name is refused")
    path = Path(text).expanduser()
    path = path.resolve() if path.is_absolute() else (Path.cwd() / path).resolve()
    return DatabaseLocation(f"sqlite:///{path}", path, source, str(path), text)
