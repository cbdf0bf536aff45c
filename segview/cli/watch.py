"""``segview watch FILE [--total N] [--param KEY=VALUE ...] [--once | --timeout SEC]``.

Follows a benchmark's output while it is written (JMH's console output, e.g. ``java -jar
benchmarks.jar | tee run.log``; a JMH fork list or ``-rf json`` result file; or a CSV; a partially
written file is read up to its last complete value) and feeds one series (one fork) to
incremental KB-KSSD (:class:`segview.stream.SteadyStateMonitor`). Progress goes to standard error;
the verdict goes to standard output as soon as it is reached.

Exit codes: 0 steady state reached (the line says since which sample), 1 not reached (``--once``
or ``--timeout`` before a verdict, or the complete series is never steady), 2 usage or input error.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .paramflags import add_preset_option, parse_param_args, positive_int

if TYPE_CHECKING:
    from ..core.stream import Verdict


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("watch", help="follow a growing benchmark output and say when it is steady",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE",
                   help="JMH console log, JMH JSON or CSV file being written")
    p.add_argument("--series", metavar="ID",
                   help="which series to follow: position (0-based) or name (fork id, CSV column, "
                        "series_id); default: the fork being written (log, JSON) or the first "
                        "column (CSV)")
    p.add_argument("--total", type=positive_int, metavar="N",
                   help="the series' final length (e.g. JMH's iteration count); reaching it makes "
                        "the verdict final")
    p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                   help="KB-KSSD parameter (repeatable; see `segview methods kbkssd`), e.g. "
                        "min_steady_length=500 to wait for one confirming Kelly block")
    add_preset_option(p)
    p.add_argument("--growth", type=float, default=None, metavar="G",
                   help="check schedule: next check G*t samples after the check at t (default "
                        "0.02; 0 = every sample)")
    p.add_argument("--interval", type=float, default=1.0, metavar="SEC",
                   help="seconds between reads of the file (default 1)")
    stop = p.add_mutually_exclusive_group()
    stop.add_argument("--once", action="store_true",
                      help="read the file once, print the verdict and exit")
    stop.add_argument("--timeout", type=float, metavar="SEC",
                      help="give up (exit 1) when no verdict after SEC seconds")
    p.add_argument("--json", action="store_true",
                   help="print the verdict as one JSON object (series, steady, since, final, "
                        "seen, checked, first_steady_after)")
    p.set_defaults(func=run)


class Watcher:
    """A file follower feeding a monitor; :meth:`poll` is one step (tests call it directly)."""

    def __init__(self, path: str, *, series: str | None = None, total: int | None = None,
                 growth: float | None = None, preset: str | None = None,
                 params: dict[str, str] | None = None, err: TextIO | None = None) -> None:
        from ..core.follow import SeriesFollower
        from ..core.stream import DEFAULT_GROWTH, SteadyStateMonitor

        self.monitor = SteadyStateMonitor(total=total, preset=preset,
                                          growth=DEFAULT_GROWTH if growth is None else growth,
                                          **(params or {}))
        self.follower = SeriesFollower(path, series)
        self.err = err

    def poll(self) -> Verdict | None:
        """Read what was appended and feed it; the verdict, or None when nothing new arrived."""
        new = self.follower.poll()
        mon = self.monitor
        if self.monitor.total is not None and mon.seen + new.size > mon.total:
            new = new[:mon.total - mon.seen]  # longer than announced: the verdict is final
        if new.size == 0 and not self.follower.complete:
            return None
        verdict = mon.extend(new) if new.size else mon.verdict
        if self.follower.complete and not verdict.final:
            verdict = mon.close()
        if self.err is not None and new.size:
            print(f"segview watch: {self.follower.name}: {verdict.describe()}", file=self.err)
        return verdict


def run(args: argparse.Namespace) -> int:
    from ..core.errors import InputError, ParameterError

    if args.interval <= 0:
        raise ParameterError("interval", f"must be positive, got {args.interval}")
    if args.timeout is not None and args.timeout < 0:
        raise ParameterError("timeout", f"must be at least 0, got {args.timeout}")
    watcher = Watcher(args.file, series=args.series, total=args.total, growth=args.growth,
                      preset=args.preset, params=parse_param_args(args.param), err=sys.stderr)
    path = Path(args.file)
    if path.is_dir():
        raise InputError(args.file, "is a folder; watch follows one file")
    if args.once and not path.is_file():
        raise InputError(args.file, "no such file")  # without --once: wait for it to appear
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    while True:
        verdict = watcher.poll()
        if verdict is not None and (verdict.steady is not None or verdict.final):
            return _report(watcher, verdict, args.json)
        if args.once or (deadline is not None and time.monotonic() >= deadline):
            return _report(watcher, watcher.monitor.verdict, args.json)
        time.sleep(args.interval)


def _report(watcher: Watcher, verdict: Verdict, as_json: bool) -> int:
    """Print the verdict (a sentence, or one JSON object); the exit code (0 = steady)."""
    name = watcher.follower.name or str(watcher.follower.path)
    first = watcher.monitor.first_steady
    if as_json:
        print(json.dumps({"series": name, "steady": verdict.steady, "since": verdict.since,
                          "final": verdict.final, "seen": verdict.seen,
                          "checked": verdict.checked,
                          "first_steady_after": first.seen if first else None}))
    elif verdict.steady:
        after = f"; first steady after {first.seen}" if first and first.seen != verdict.seen else ""
        print(f"{name}: steady since sample {verdict.since} (checked on {verdict.checked} of "
              f"{verdict.seen} samples{after}{', final' if verdict.final else ''})")
    elif verdict.final:
        print(f"{name}: never steady ({verdict.seen} samples, final)")
    elif verdict.seen < watcher.monitor.min_length:
        print(f"{name}: no verdict yet after {verdict.seen} samples (KB-KSSD needs at least "
              f"{watcher.monitor.min_length})")
    else:
        print(f"{name}: not steady yet after {verdict.seen} samples")
    return 0 if verdict.steady else 1
