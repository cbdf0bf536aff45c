"""``segview gui [PATH...] [--screenshot FILE]``: the desktop explorer (the default command)."""
from __future__ import annotations

import argparse
import sys

from .loading import add_columns_option, add_fill_missing_option, remember_columns


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gui", help="open the explorer (default: the bundled sample data)")
    p.add_argument("paths", nargs="*", help="files or folders to open")
    add_columns_option(p)
    p.add_argument("--screenshot", metavar="FILE.png",
                   help="render the main window once every enabled detector finished on the first "
                        "series, save it and exit")
    add_fill_missing_option(p, "fill missing values (TCPD null) by this rule; by default a file "
                               "with a gap is reported and skipped (File > Missing values in "
                               "the window)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..gui.app import ensure_platform
    from ..gui.qtdeps import check

    ensure_platform(args.screenshot)  # a screenshot needs no display: offscreen without one
    if not check():  # before Qt: its own message names the wrong library (or no display at all)
        return 1
    try:
        from ..gui.app import run as run_gui
    except ImportError as err:  # the GUI package or Qt is missing
        print(f"segview: GUI not available ({err}); the command line works: segview --help",
              file=sys.stderr)
        return 0
    remember_columns(args, args.paths)
    return int(run_gui(list(args.paths), args.screenshot, args.fill_missing))
