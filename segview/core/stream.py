"""Steady state while the benchmark runs: KB-KSSD fed one measurement at a time.

:class:`SteadyStateMonitor` consumes measurements (``push``/``extend``) and answers, after each,
with a :class:`Verdict`: is the series steady, since which sample, and can the answer still change.
Its answers are batch KB-KSSD's answers (``segview.detect(prefix, "kbkssd", **params)``, the
faithful detector of ``docs/algorithms/kbkssd.md``, bit for bit) on the prefixes it evaluates.

When can the batch result no longer change?
-------------------------------------------
Only when the series is complete. Every stage of KB-KSSD reads the whole series, so a prefix fixes
nothing (§ numbers refer to the spec):

* §3 outlier substitution splits ``x[1:]`` into ``floor((N-1)/W_o)`` near-equal blocks. One more
  sample moves the boundary of every block after the ``(N-1) mod K``-th (and all of them when ``K``
  grows), so each block's percentiles and replacements, i.e. ``y`` anywhere, may change.
* §5 step detection centres on the mean of the whole series and takes global argmins of the large
  and short kernel responses and medians of slices reaching the end (``d[b+1..N-1]``,
  ``d[c..N-1]``, ``med(d)``); the large kernel spans the whole series, so its "lookahead" is
  unbounded, and the short kernel's 30-sample window only fixes where *it* can place a step.
* §6-7 Kelly blocks are aligned at ``w + 1`` and the last block absorbs a remainder of 1-2
  samples (slope ``(z_m - z_1)/(m - 1)`` uses the last sample); the onset rule needs the steady run
  to reach the *end* of the series, and ``min_steady_length`` counts samples up to the end.

Constructive proof that no proper prefix ``x[:t]`` is final (median filter ``k = 1``; ``h`` = short
kernel half, ``l`` = ``min_steady_length``): append ``2*W_o`` copies of ``x[t-1]``, then
``2*W_o + max(h, l + 1, 3)`` copies of a constant ``c`` far below every value (e.g. ``-2**50``).
Outlier blocks are shorter than ``2*W_o``, so the block holding the first ``c`` contains no sample
of the prefix; in it a few ``c`` may be replaced by the block median ``x[t-1]``, blocks wholly in
the tail are constant (no strict outliers). So the drop sits at some ``t' >= t + 2*W_o``; it is
the unique minimum of both kernel responses (``L = S = t' - 1``), case B applies and the final
check passes by about ``|c|``: ``w = t' - 1``, and the tail's Kelly blocks are constant with
``sigma = 0`` and ``mu = c`` exactly (``p = 1``). The onset becomes ``t' > t - 1``, unlike any
onset of the prefix (``<= t - 1``) or "unsteady". ``test_continuation_changes_every_verdict``
checks this on real series (all 350 JMH series, prefixes 101, 777 and 3000, ``l`` 1 and 500: every
verdict changed). So with an unknown length no prefix is ever final; with a known length
``total``, prefixes more than ``r = 4*W_o + max(h, l + 1, 3)`` samples short of it are not final
either, and for the last ``r`` samples finality depends on the data in a way only a search over
continuations could settle. The monitor therefore reports ``final=True`` exactly when the series
is complete: ``total`` samples seen, or :meth:`SteadyStateMonitor.close` called. Then the verdict
*is* batch KB-KSSD on the full series.

Before that, ``steady=True`` means: batch KB-KSSD on the data so far says steady since ``since``
(with ``min_steady_length`` at least that many samples already follow the onset), which is the
signal to stop the benchmark; ``steady=None`` means not (yet) steady or too short to judge;
``steady=False`` only on the complete series when KB-KSSD says "never steady".

Cost: why a check schedule instead of every prefix
--------------------------------------------------
Because of the re-blocking above, the exact result on a prefix of length ``t`` cannot be updated
from the previous one; evaluating it costs Θ(t) (the detector is linear-time). Evaluating every
prefix would cost Θ(t) per measurement. The monitor evaluates the prefixes ``t_0 = min_length``,
``t_{k+1} = t_k + max(1, ceil(growth * t_k))``, so the work up to ``n`` samples is at most
``n * (1 + (1 + growth) / growth)`` sample-operations: O(1/growth) amortised per measurement,
independent of ``n``; a verdict comes at most ``growth * t`` samples after the prefix that first
allows it. ``growth=0`` evaluates every prefix (exact "as soon as the rule allows", Θ(t) each).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .context import RunContext
from .errors import InputError, ParameterError
from .params import Params

DEFAULT_GROWTH = 0.02


@dataclass(frozen=True)
class Verdict:
    """The monitor's answer after a measurement.

    Attributes:
        steady: True = batch KB-KSSD on the prefix ``x[:checked]`` says steady; False = the series
            is complete and KB-KSSD says it never becomes steady; None = undecided (not steady on
            the last checked prefix, or fewer samples than KB-KSSD needs).
        since: first steady sample (0-based) when ``steady``; else None.
        final: the series is complete, so the batch result can no longer change.
        seen: measurements consumed so far.
        checked: length of the prefix the verdict was computed on (0 = none yet).
        warmup_end: KB-KSSD's warm-up end ``w`` on that prefix (-1 = no step), None before a check.
    """

    steady: bool | None
    since: int | None
    final: bool
    seen: int
    checked: int
    warmup_end: int | None = None

    def describe(self) -> str:
        """One line for people (the ``segview watch`` output)."""
        state = {True: "steady", False: "never steady", None: "undecided"}[self.steady]
        text = f"{self.seen} samples: {state}"
        if self.steady:
            text += f" since sample {self.since}"
        if self.checked and self.checked != self.seen:
            text += f" (checked on the first {self.checked})"
        return text + (" [final]" if self.final else "")


class SteadyStateMonitor:
    """Incremental KB-KSSD: ``push`` measurements, read the :class:`Verdict`.

    Args:
        total: the series' known final length (e.g. JMH's measurement iteration count); reaching
            it makes the verdict final. None = unknown; call :meth:`close` at the end.
        growth: check schedule (see the module docstring): the next check comes
            ``max(1, ceil(growth * t))`` samples after the check at ``t``; 0 = every sample.
        preset: a named KB-KSSD preset; ``params`` override it.
        **params: KB-KSSD parameters (``segview methods kbkssd``), e.g. ``min_steady_length=500``
            to demand one Kelly block of confirmed steadiness before saying steady.

    Example::

        m = SteadyStateMonitor(total=3000)
        for x in measurements:
            v = m.push(x)
            if v.steady:
                print("steady since", v.since); break
    """

    def __init__(self, *, total: int | None = None, growth: float = DEFAULT_GROWTH,
                 preset: str | None = None, **params: Any) -> None:
        from . import registry
        from .detectors import kbkssd

        self._kb = kbkssd
        self.params: Params = registry.get(kbkssd.NAME).coerce(params, preset=preset)
        if total is not None and (isinstance(total, bool) or int(total) != total or total < 1):
            raise ParameterError("total", f"must be a positive whole number or None, got {total!r}")
        growth = float(growth)
        if not math.isfinite(growth) or not 0.0 <= growth <= 10.0:
            raise ParameterError("growth", f"must lie in [0, 10], got {growth!r}")
        self.total = None if total is None else int(total)
        self.growth = growth
        self.min_length = kbkssd.min_length(self.params)
        self._buf = np.empty(max(self.min_length, 64) * 2)
        self._n = 0
        self._next = self.min_length
        self._closed = False
        self.work = 0  # samples processed by checks so far (the cost model of the docstring)
        self.checks = 0
        self.first_steady: Verdict | None = None  # the first verdict with steady=True
        self.verdict = Verdict(None, None, False, 0, 0)

    # -- feeding ----------------------------------------------------------------------------

    def push(self, value: float) -> Verdict:
        """Consume one measurement; returns the verdict after it."""
        return self.extend((value,))

    def extend(self, values: ArrayLike) -> Verdict:
        """Consume several measurements; same verdicts as pushing them one at a time.

        Raises:
            InputError: a value is not a finite number, or more than ``total`` measurements.
            ParameterError: the monitor was closed.
        """
        if self._closed:
            raise ParameterError("push", "the monitor is closed (the series was complete)")
        xs = np.asarray(values, dtype=np.float64).reshape(-1)
        bad = np.flatnonzero(~np.isfinite(xs))
        if bad.size:
            raise InputError("measurement", f"non-finite value {xs[bad[0]]!r} at index "
                                            f"{self._n + int(bad[0])}")
        if self.total is not None and self._n + xs.size > self.total:
            raise InputError("measurement", f"more than total={self.total} measurements "
                                            f"(index {self.total})")
        end = self._n + xs.size
        if end > self._buf.size:
            grown = np.empty(max(end, 2 * self._buf.size))
            grown[:self._n] = self._buf[:self._n]
            self._buf = grown
        self._buf[self._n:end] = xs
        while self._next <= end:
            self._check(self._next)
            self._next += max(1, math.ceil(self.growth * self._next))
        self._n = end
        if self.total is not None and end == self.total:
            return self._finish()
        self.verdict = Verdict(self.verdict.steady, self.verdict.since, False, end,
                               self.verdict.checked, self.verdict.warmup_end)
        return self.verdict

    def close(self) -> Verdict:
        """The series is complete: the final verdict (batch KB-KSSD on everything pushed).

        Raises:
            InputError: fewer measurements than KB-KSSD needs (as the batch detector).
        """
        if self._closed:
            return self.verdict
        if self._n < self.min_length:
            raise InputError("series", f"kbkssd needs at least {self.min_length} points, the "
                                       f"monitor saw {self._n}")
        return self._finish()

    # -- reading ----------------------------------------------------------------------------

    @property
    def seen(self) -> int:
        return self._n

    @property
    def values(self) -> NDArray[np.float64]:
        """A read-only view of the measurements consumed so far."""
        view = self._buf[:self._n]
        view.flags.writeable = False
        return view

    # -- internals --------------------------------------------------------------------------

    def _finish(self) -> Verdict:
        if self.verdict.checked != self._n:
            self._check(self._n)
        v = self.verdict
        steady = True if v.steady else False
        self.verdict = Verdict(steady, v.since, True, self._n, v.checked, v.warmup_end)
        self._closed = True
        return self.verdict

    def _check(self, t: int) -> None:
        """Batch KB-KSSD on ``x[:t]`` (the detector's own functions, so bit-identical)."""
        kb = self._kb
        prep = kb.prepare(self._buf[:t], self.params, RunContext())
        onset = kb.onset_from_runs(prep.run_starts, prep.run_values, prep.n,
                                   float(self.params["prob_threshold"]),
                                   int(self.params["min_steady_length"]))
        self.work += t
        self.checks += 1
        steady = True if onset is not None else None
        self.verdict = Verdict(steady, onset, False, t, t, int(prep.warmup_end))
        if steady and self.first_steady is None:
            self.first_steady = self.verdict
