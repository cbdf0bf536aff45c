"""``segview`` command: sub-commands are modules of ``segview.cli`` listed in COMMANDS.

Each module defines ``register(subparsers)``, which adds its parser and sets ``func=run`` with
``run(args) -> int``. ``main(argv) -> int`` is what the console script and the tests call.

Start-up is lazy: ``main`` imports only the module of the command it runs (detectors, scipy, Qt...
load with that module); every other command is listed by name and the one-line help of COMMANDS,
so ``segview --help`` imports no sub-command at all (``tests/core/test_startup.py``).
"""
from __future__ import annotations

import argparse
import contextlib
import logging
import re
import signal
import sys
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

from .. import __version__
from ..core.errors import InputError, RecoverableError, Terminated
from ..core.secrets import install_log_masking, mask_secrets

#: command -> the one-line help ``segview --help`` lists (each module's ``register`` uses the same
#: text for its parser; a test keeps the two equal).
COMMANDS: dict[str, str] = {
    "gui": "open the explorer (default: the bundled sample data)",
    "detect": "run detectors on series files or folders",
    "methods": "list detectors and their parameters",
    "formats": "list the file formats (readers) segview reads, with examples",
    "inspect": "say what segview read: benchmarks, executions, warm-up and measured iterations",
    "aggregate": "aggregate judges' labels into ground truth (JAGT)",
    "evaluate": "compare detector outputs with a ground truth",
    "session": "annotation sessions: create, progress, import/export",
    "sensitivity": "Sobol sensitivity analysis of a detector's parameters",
    "tune": "grid search of a detector's parameters against a ground truth",
    "annotate": "label series as a judge (annotation window)",
    "watch": "follow a growing benchmark output and say when it is steady",
    "workload": "workload series W(t) from job logs; Auto-PARM breakpoints across sites",
    "warmup": "warm-up classes per execution and benchmark (warmup_stats), with reports",
    "compare": "compare two result sets: class changes, steady performance ratio with CI, verdict",
}


class Parser(argparse.ArgumentParser):
    """argparse with segview's masking: its own messages (usage errors quote what was typed, such
    as an unknown ``--db-url postgresql://u:pw@h/db`` or a URL given as a positional argument)
    never show a password. Sub-parsers are of the same class (argparse makes them with
    ``type(parent)``)."""

    def _print_message(self, message: str, file: object = None) -> None:
        super()._print_message(mask_secrets(message) if message else message, file)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # noqa: A003 - argparse API
        super().exit(status, mask_secrets(message) if message else message)

    def error(self, message: str) -> None:
        super().error(mask_secrets(message))


_VERBOSE = re.compile(r"^-v+$")


def _global_flag(word: str) -> bool:
    """An option of ``segview`` itself (before the command): -h, --version, -v, -vv, --verbose."""
    return word in ("-h", "--help", "--version", "--verbose") or bool(_VERBOSE.match(word))


def command_of(argv: list[str]) -> str | None:
    """The sub-command ``argv`` names (its first word that is not an option), or None."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``segview`` parser; with ``only``, just that sub-command is built in full (the others
    are listed with their help line and never imported)."""
    parser = Parser(
        prog="segview",
        description="Find steady states and change points in performance time series. "
                    "Without a command, opens the explorer on the bundled sample data.")
    parser.add_argument("--version", action="version", version=f"segview {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more log output (-vv: debug); passwords are masked in it")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_line in COMMANDS.items():
        if only is None or name == only:
            import_module(f"{__package__}.{name}").register(sub)
        else:
            sub.add_parser(name, help=help_line, add_help=False)
    add_force_flags(parser)
    return parser


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out = []
    for action in parser._actions:  # argparse keeps sub-parsers only here
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                out += [child, *_subparsers(child)]
    return out


def add_force_flags(parser: argparse.ArgumentParser) -> None:
    """Give every (sub-)command that writes ``--out`` a ``--force`` flag: without it an existing
    file is never overwritten (checked once, in :func:`check_out_path`, for all commands)."""
    for child in _subparsers(parser):
        opts = {o for a in child._actions for o in a.option_strings}
        if "--out" in opts and "--force" not in opts:
            child.add_argument("--force", action="store_true",
                               help="overwrite the --out file if it exists")


def check_out_path(args: argparse.Namespace) -> None:
    """Refuse to overwrite an existing ``--out`` file without ``--force``, and name a missing folder."""
    out = getattr(args, "out", None)
    if not out or not isinstance(out, str) or out == "-":
        return
    path = Path(out)
    if path.is_file() and not getattr(args, "force", False):
        raise InputError(str(path), "exists; pass --force to overwrite it")
    if path.exists() and not path.is_file() and not path.is_dir():
        raise InputError(str(path), "is not a regular file")
    parent = path.parent
    if not parent.is_dir():
        raise InputError(str(path), f"cannot be written: the folder {str(parent)!r} does not exist")


#: the interrupting signals received while a command ran (SIGINT, SIGTERM), in order
_SIGNALLED: list[int] = []


def _raise_terminated(signum: int, frame: object) -> None:
    _SIGNALLED.append(signum)
    raise Terminated()


def _raise_interrupted(signum: int, frame: object) -> None:
    _SIGNALLED.append(signum)
    raise KeyboardInterrupt()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While a command runs, SIGTERM raises :class:`Terminated` (a KeyboardInterrupt) in the main
    thread: the same clean-up as Ctrl-C (``detect`` keeps ``OUT.partial.csv``, worker pools are shut
    down, an export's hidden folder and temporary files are removed). Outside the main thread, or
    where signals are unavailable, nothing changes."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
        previous_int = signal.signal(signal.SIGINT, _raise_interrupted)
    except (ValueError, OSError, AttributeError):  # not the main thread / no SIGTERM
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (0 ok, 1 failure found, 2 error, 130 Ctrl-C).

    Ctrl-C at any moment, the first second of imports included, ends with one line
    ("segview: interrupted") and 130, never a traceback; running out of memory says so and
    names the command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("segview: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        # the commands name the file or series where they can (loader, batch rows); this is
        # the last resort, e.g. results too many to hold
        print(f"segview: error: out of memory while running 'segview {command_of(argv) or ''}'"
              " (less data per run, or a machine with more memory)", file=sys.stderr)
        return 2


def _main(argv: list[str]) -> int:
    if not argv or (argv[0].startswith("-") and not _global_flag(argv[0])):
        argv = ["gui", *argv]
    parser = build_parser(only=command_of(argv) or "")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING - 10 * min(args.verbose, 2),
                        format="%(levelname)s %(name)s: %(message)s")
    install_log_masking()  # a URL in any log record (ours, SQLAlchemy's, a driver's) is masked
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    _SIGNALLED.clear()
    try:
        with sigterm_as_interrupt():
            check_out_path(args)
            return int(args.func(args) or 0)
    except (RecoverableError, OSError) as err:
        if isinstance(err, OSError):  # a file or folder that cannot be written or read, a
            where = f"{err.filename}: " if getattr(err, "filename", None) else ""  # scheduler...
            text = where + (err.strerror or str(err))
        else:
            text = str(err)
        if _SIGNALLED:  # the error came of stopping after Ctrl-C/SIGTERM (a worker's pipe cut by
            # the same signal, ...): the command was interrupted, and says so
            term = _SIGNALLED[0] == Terminated.signum
            print(f"segview: {'terminated (SIGTERM)' if term else 'interrupted'} (while stopping: "
                  f"{mask_secrets(text)})", file=sys.stderr)
            return 128 + Terminated.signum if term else 130
        print(f"segview: error: {mask_secrets(text)}", file=sys.stderr)
        return 2
    except Terminated:
        print("segview: terminated (SIGTERM)", file=sys.stderr)
        return 128 + Terminated.signum
    except KeyboardInterrupt:
        print("segview: interrupted", file=sys.stderr)
        return 130
