"""``segview annotate [PATH...] [--db URL] [--session NAME] [--judge NAME]``: the annotation window.

A judge labels a session's series (blind, keyboard first, every action committed to the annotation
database at once). With ``--session`` and ``--judge`` the session opens directly (created from the
PATHs when it does not exist yet); otherwise a dialog asks for the database, session and judge.
"""
from __future__ import annotations

import argparse
import sys

from ..core.annotation.store import PROTOCOLS
from .database import add_db_flag, announce, resolve
from .loading import add_columns_option, remember_columns


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("annotate", help="label series as a judge (annotation window)",
                       description="Open the annotation window: a judge labels the series of an "
                                   "annotation session (steady / unsteady and onset, or change "
                                   "points). Labels go straight into the annotation database.")
    p.add_argument("paths", nargs="*", help="series files or folders (to create a session)")
    add_db_flag(p)
    add_columns_option(p)
    p.add_argument("--session", metavar="NAME", help="session to open (or create from PATHs)")
    p.add_argument("--judge", metavar="NAME", help="your name (a new name adds a judge)")
    p.add_argument("--protocol", choices=PROTOCOLS, default="steady_state",
                   help="protocol of a new session (default steady_state)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..gui.qtdeps import check

    location = resolve(args)  # a malformed URL is refused before any window opens

    if not check():  # before Qt: its own message names the wrong library
        return 1
    try:
        from ..gui.annotate.window import run as run_window
    except ImportError as err:  # Qt missing
        print(f"segview: GUI not available ({err}); annotation sessions can still be managed "
              f"with: segview session --help", file=sys.stderr)
        return 2
    announce(location)
    remember_columns(args, args.paths)
    return int(run_window(list(args.paths), location.spec, args.session, args.judge,
                          args.protocol))
