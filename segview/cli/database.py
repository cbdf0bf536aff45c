"""The ``--db`` / ``--db-url`` option every command that opens the annotation database takes.

What the value means (a URL, a literal file path, or nothing: ``$SEGVIEW_DB`` or the default file)
is decided in one place, :func:`segview.core.annotation.location.resolve_db`; here the option is
declared once and the location announced on stderr, its password masked.
"""
from __future__ import annotations

import argparse
import sys

HELP = ("annotation database: a URL (postgresql://user@host/db, sqlite:///FILE) or an SQLite file "
        "path, taken literally (default: $SEGVIEW_DB, else ./segview-annotations.sqlite)")


def add_db_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", "--db-url", dest="db", metavar="URL", default=None, help=HELP)


def db_source(args: argparse.Namespace) -> str:
    return "--db" if getattr(args, "db", None) else "default"


def resolve(args: argparse.Namespace):  # -> DatabaseLocation
    """The database the command line names (raises DatabaseNameError for a malformed URL)."""
    from ..core.annotation.location import resolve_db

    return resolve_db(getattr(args, "db", None), source=db_source(args))


def announce(location) -> None:  # noqa: ANN001 - DatabaseLocation, imported lazily
    print(f"annotation database: {location.display}"
          + (" (from $SEGVIEW_DB)" if location.source == "$SEGVIEW_DB" else ""), file=sys.stderr)
