"""``segview`` command: sub-commands are modules of ``segview.cli`` listed in COMMANDS.

Each module defines ``register(subparsers)``, which adds its parser and sets ``func=run`` with
``run(args) -> int``. ``main(argv) -> int`` is what the console script and the tests call.
"""
from __future__ import annotations

import argparse
import logging
import sys
from importlib import import_module

from .. import __version__
from ..core.errors import RecoverableError

COMMANDS: tuple[str, ...] = ("gui", "detect", "methods", "aggregate", "evaluate", "session", "sensitivity", "tune", "annotate")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="segview",
        description="Find steady states and change points in performance time series. "
                    "Without a command, opens the explorer on the bundled sample data.")
    parser.add_argument("--version", action="version", version=f"segview {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        import_module(f"{__package__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (0 ok, 1 failure found, 2 error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version",
                                                                "-v", "--verbose")):
        argv = ["gui", *argv]
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING - 10 * min(args.verbose, 2),
                        format="%(levelname)s %(name)s: %(message)s")
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except RecoverableError as err:
        print(f"segview: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("segview: interrupted", file=sys.stderr)
        return 130
