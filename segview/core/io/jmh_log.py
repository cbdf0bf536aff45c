"""JMH's console output (``java -jar benchmarks.jar ... | tee run.log``, or ``-o run.log``).

The only place JMH keeps its warm-up iterations. Lines read (as printed by JMH's
``runner/format/TextReportFormat.java`` and ``runner/Runner.java``/``BaseRunner.java``, checked
against openjdk/jmh at 1.38-SNAPSHOT, commit 1396942, and the 1.37 release's output)::

    # JMH version: 1.37                          run metadata, until "# Benchmark:"
    # VM version: JDK 17.0.12, OpenJDK 64-Bit Server VM, 17.0.12+7-Debian-2deb12u1
    # VM invoker: /usr/lib/jvm/java-17-openjdk-amd64/bin/java
    # VM options: -Xmx1g
    # Warmup: 5 iterations, 10 s each
    # Measurement: 5 iterations, 10 s each
    # Threads: 1 thread, will synchronize iterations
    # Benchmark mode: Average time, time/op      -> direction (Throughput is "higher")
    # Benchmark: org.sample.MyBenchmark.fib      -> the benchmark's name
    # Parameters: (n = 20, size = 100)           -> its parameters, name "...fib[n=20,size=100]"
    # Warmup Fork: 1 of 1                        a warm-up fork: JMH discards it, so does segview
    # Fork: 2 of 5                               -> execution index 1 ("# Fork: N/A": index 0)
    # Warmup Iteration   1: 1523.417 ns/op       -> a warm-up iteration (kept, warmup=K)
    Iteration   1: 1498.221 ns/op                -> a measured iteration
    Iteration   2: 10.055 ±(99.9%) 0.005 ms/op   (sample mode: mean ± error, the mean is read)
    <failure>                                    the fork failed (also "<forked VM failed ...>")
    Result "org.sample.MyBenchmark.fib":         the benchmark's summary: its forks are complete

Values are ``%.3f`` in the JVM's locale (a decimal comma is read); a value JMH prints as
``≈ 10⁻⁴`` (too small for the unit) is an error saying to rerun with a finer ``-tu``. The last line
of a log still being written is ignored unless it ends in a newline; a fork is ``complete`` once
the next fork, benchmark or result summary has begun. Secondary results (``·gc.alloc.rate``) and the
benchmark's own output are skipped.

Series: one per fork with at least one measured iteration, id ``benchmark[params]/forkK`` (as for
``-rf json``), the warm-up iterations first (``warmup`` metadata). A failed fork is a named
:class:`~segview.core.errors.DataFormatWarning` (its printed iterations are kept when it has
measured ones). :class:`JmhLogParser` is shared with ``segview watch``
(:mod:`segview.core.follow`), which feeds it the lines appended since its last poll.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
from pathlib import Path
import re
from typing import Any, cast

from ..benchmark import HIGHER, LOWER, direction_for_unit, execution
from ..errors import DataFormatError
from ..model import Series
from .jmh_json import _bench_name
from .loadwarn import report
from .readers import NotSeriesFile, read_text

_SNIFF = re.compile(r"^(# JMH version: |# Run progress: |# (Warmup )?Fork: (\d+ of \d+|N/A)|"
                    r"# Warmup Iteration +\d+: |Iteration +\d+: \S)", re.M)
_ITERATION = re.compile(r"^(# Warmup Iteration|Iteration) +(\d+): (.*)$")
_FORK = re.compile(r"^# (Warmup )?Fork: (?:(\d+) of (\d+)|N/A)")
_END = re.compile(r"^(# Run complete|Result \"|Secondary result \"|Benchmark +Mode +)")
_FAILED = re.compile(r"^(<failure>|<forked VM failed with exit code -?\d+>|"
                     r"<binary link had failed)")
_PARAM = re.compile(r"(?:^|, )([A-Za-z_$][\w$]*) = ")
_HEADER = {"# JMH version: ": "jmhVersion", "# VM version: ": "vmVersion",
           "# VM invoker: ": "jvm", "# VM options: ": "jvmArgs", "# Warmup: ": "warmup_setting",
           "# Measurement: ": "measurement_setting", "# Timeout: ": "timeout",
           "# Threads: ": "threads", "# Benchmark mode: ": "mode_label"}
# "# Benchmark mode: " long labels (Mode.longLabel()) -> JMH's short mode names
MODES = {"Throughput, ops/time": "thrpt", "Average time, time/op": "avgt",
         "Sampling time": "sample", "Single shot invocation time": "ss"}
_TIME_MODES = ("avgt", "sample", "ss")


def sniff(head: str) -> bool:
    return _SNIFF.search(head) is not None


def parse_params(text: str) -> dict[str, str]:
    """``(n = 20, name = a, b)`` -> ``{"n": "20", "name": "a, b"}`` (JMH prints ``k = v`` joined
    by ``", "``; a value may itself hold ``", "``)."""
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    marks = list(_PARAM.finditer(text))
    out = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out[m.group(1)] = text[m.end():end]
    return out


def parse_value(text: str, source: str, where: str) -> tuple[float, str]:
    """An iteration's printed result -> (value, unit).

    Raises:
        DataFormatError: an approximate value (``≈ 10⁻⁴``) or text that is not a number.
    """
    text = text.strip()
    if text.startswith("≈") or "⁻" in text:
        raise DataFormatError(source, f"JMH printed the value as {text.split(' ±')[0]!r} (too small "
                              "for its unit): rerun with a finer time unit, e.g. -tu ns", where)
    parts = text.split()
    if not parts:
        raise DataFormatError(source, "an iteration without a value", where)
    num = parts[0]
    if "," in num and "." not in num:
        num = num.replace(",", ".")  # decimal comma of the JVM's locale
    try:
        value = float(num.replace(",", ""))
    except ValueError:
        raise DataFormatError(source, f"{parts[0]!r} is not a number", where) from None
    if not math.isfinite(value):
        raise DataFormatError(source, f"JMH printed {parts[0]!r} for this iteration", where)
    rest = parts[1:]
    if len(rest) >= 2 and rest[0].startswith("±"):
        rest = rest[2:]  # "± (99.9%) error" of a sample-mode iteration
    unit = rest[0] if rest else ""
    return value, unit


@dataclass
class LogFork:
    """One fork of one benchmark as the log printed it so far."""

    benchmark: str                 # the name with its parameters, e.g. "org.B.fib[n=20]"
    index: int                     # 0-based fork index ("# Fork: 2 of 5" -> 1)
    forks: int | None              # "of k"
    warmup_fork: bool              # "# Warmup Fork:": discarded by JMH
    line: int                      # 1-based line of its "# Fork:" (or first iteration)
    params: dict[str, str] = field(default_factory=dict)
    header: dict[str, Any] = field(default_factory=dict)
    values: list[float] = field(default_factory=list)
    warmup: int = 0                # leading warm-up iterations in ``values``
    unit: str = ""
    unit_line: int = 0
    complete: bool = False
    failed: str | None = None

    @property
    def id(self) -> str:
        return f"{self.benchmark}/fork{self.index}"

    @property
    def measured(self) -> list[float]:
        return self.values[self.warmup:]


class JmhLogParser:
    """Reads JMH console output line by line (:meth:`feed`); ``forks`` holds every fork met, in
    order (warm-up forks included, flagged), ``current`` the one being printed."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.forks: list[LogFork] = []
        self.current: LogFork | None = None
        self.lineno = 0
        self._header: dict[str, Any] = {}
        self._bench = ""
        self._params: dict[str, str] = {}
        self._modes: dict[str, str] = {}  # benchmark name -> the mode it was first run in

    def _where(self) -> str:
        return f"line {self.lineno}"

    def _close(self) -> None:
        if self.current is not None:
            self.current.complete = True
        self.current = None

    def _name_now(self) -> str:
        name = _bench_name({"benchmark": self._bench or "benchmark", "params": self._params})
        mode = self._header.get("mode", "")
        first = self._modes.setdefault(name, mode)
        return name if first == mode else f"{name} ({mode})"  # "-bm all": one name per mode

    def _start(self, index: int, forks: int | None, warmup_fork: bool) -> LogFork:
        fork = LogFork(self._name_now(), index, forks, warmup_fork, self.lineno, dict(self._params),
                       dict(self._header))
        self.forks.append(fork)
        self.current = fork
        return fork

    def feed(self, line: str) -> None:
        """Take the next complete line (without its newline).

        Raises:
            DataFormatError: a value cannot be read, or a fork mixes units (names the line).
        """
        self.lineno += 1
        line = line.rstrip("\r\n")
        if line.startswith("# "):
            for prefix, key in _HEADER.items():
                if line.startswith(prefix):
                    if key == "jmhVersion":
                        self._close()
                        self._header = {}
                    value = line[len(prefix):].strip()
                    self._header[key] = value
                    if key == "mode_label":
                        self._header["mode"] = MODES.get(value, value)
                    return
            if line.startswith("# Benchmark: "):
                self._close()
                self._bench = line[len("# Benchmark: "):].strip()
                self._params = {}
                return
            if line.startswith("# Parameters: "):
                self._params = parse_params(line[len("# Parameters: "):])
                return
            m = _FORK.match(line)
            if m is not None:
                self._close()
                index = int(m.group(2)) - 1 if m.group(2) else 0
                self._start(index, int(m.group(3)) if m.group(3) else None, bool(m.group(1)))
                return
            if line.startswith("# Run complete"):
                self._close()
                return
        m = _ITERATION.match(line)
        if m is not None:
            self._iteration(m.group(1) != "Iteration", m.group(3))
            return
        if _FAILED.match(line):
            if self.current is not None and self.current.failed is None:
                self.current.failed = f"{line.strip()} at line {self.lineno}"
            return
        if _END.match(line):
            self._close()

    def _iteration(self, warm: bool, text: str) -> None:
        fork = self.current
        if fork is None:  # iterations without a "# Fork:" line (a log cut at its start)
            fork = self._start(0, None, False)
        if text.strip().startswith("<failure>"):
            if fork.failed is None:
                fork.failed = f"<failure> at line {self.lineno}"
            return
        value, unit = parse_value(text, self.source, self._where())
        if warm and len(fork.values) > fork.warmup:
            raise DataFormatError(self.source, "a warm-up iteration after measured iterations of "
                                  f"fork {fork.index + 1} of {fork.benchmark!r}", self._where())
        if fork.unit and unit != fork.unit:
            raise DataFormatError(self.source, f"{fork.benchmark!r}: unit {unit!r} where fork "
                                  f"{fork.index + 1} printed {fork.unit!r} (line {fork.unit_line});"
                                  " mixed units in one benchmark", self._where())
        if not fork.unit:
            fork.unit, fork.unit_line = unit, self.lineno
        fork.values.append(value)
        if warm:
            fork.warmup += 1

    def feed_text(self, text: str) -> None:
        """Feed every complete line of ``text`` (a last line without its newline is still being
        written and is ignored)."""
        lines = text.split("\n")
        for line in lines[:-1]:
            self.feed(line)


def _direction(fork: LogFork) -> str | None:
    mode = fork.header.get("mode")
    if mode == "thrpt":
        return HIGHER
    if mode in _TIME_MODES:
        return LOWER
    return direction_for_unit(fork.unit)


def read(path: Path) -> list[Series]:
    """Read a JMH console log (see the module docstring).

    Raises:
        NotSeriesFile: a ``.log``/``.out``/``.txt`` file that is not JMH output.
        DataFormatError: a bad value, mixed units, or no measured iteration at all (names file and
            line).
    """
    path = Path(path)
    text = read_text(path)
    if not sniff(text[:65536]):
        raise NotSeriesFile(str(path), "not JMH console output (no '# JMH version:', '# Fork:' or "
                                       "'Iteration N:' line)")
    parser = JmhLogParser(str(path))
    parser.feed_text(text)
    out: list[Series] = []
    pending: list[tuple[str, str, str]] = []
    units: dict[str, tuple[str, int]] = {}
    skipped_warmup_forks: dict[str, int] = {}
    for fork in parser.forks:
        where = f"line {fork.line}, {fork.benchmark!r} fork {fork.index + 1}"
        if fork.warmup_fork:
            skipped_warmup_forks[fork.benchmark] = skipped_warmup_forks.get(fork.benchmark, 0) + 1
            continue
        if fork.unit:
            first = units.setdefault(fork.benchmark, (fork.unit, fork.unit_line))
            if first[0] != fork.unit:
                raise DataFormatError(str(path), f"{fork.benchmark!r}: unit {fork.unit!r} where an "
                                      f"earlier fork printed {first[0]!r} (line {first[1]}); mixed "
                                      "units in one benchmark", f"line {fork.unit_line}")
        if fork.failed:
            pending.append((fork.benchmark, f"fork {fork.index + 1} of {fork.benchmark!r} failed "
                            f"({fork.failed}) after {len(fork.measured)} measured iterations"
                            + ("" if fork.measured else "; it has no values and is left out"),
                            where))
        if not fork.measured:
            continue  # a failed fork (reported) or one still in its warm-up (complete=False)
        h = fork.header
        meta: dict[str, Any] = {k: h[k] for k in ("jmhVersion", "vmVersion", "jvm", "jvmArgs",
                                                  "mode", "threads", "warmup_setting",
                                                  "measurement_setting") if k in h}
        meta.update({"source": str(path), "format": "jmh-log", "fork": fork.index,
                     "forks": fork.forks, "line": fork.line, "complete": fork.complete})
        if fork.failed:
            meta["failed"] = fork.failed
        out.append(execution(fork.values, benchmark=fork.benchmark, index=fork.index,
                             harness="jmh", unit=fork.unit, direction=_direction(fork),
                             warmup=fork.warmup, params=fork.params or None, id=fork.id,
                             metadata=meta))
    if not out:
        running = [f for f in parser.forks if not f.warmup_fork and not f.complete]
        if running:
            f = running[-1]
            raise DataFormatError(str(path), f"no measured iteration yet: fork {f.index + 1} of "
                                  f"{f.benchmark!r} has {f.warmup} warm-up iterations so far (the "
                                  "log is still being written)", f"line {f.line}")
        raise DataFormatError(str(path), "JMH console output without any measured iteration "
                              "('Iteration N: value unit' lines)")
    for s in out:
        n = skipped_warmup_forks.get(str(s.metadata["benchmark"]))
        if n:
            # a Series holds its own dict copy of the metadata (Series.__init__), ours to extend
            cast(dict[str, Any], s.metadata)["warmup_forks_skipped"] = n
    for bench, reason, where in pending:
        report(out, bench, str(path), reason, where)
    return out
