"""The default change-point detector ``auto``: a majority vote of five different models.

Why a vote. Each penalised or Bayesian detector errs in its own way on real data: the change-in-mean
L2 cost splits trends and wandering levels, the Normal (mean-and-variance) cost splits bursts of
noise, BOCPD starts new runs at outliers, the nonparametric cost splits changes of shape. A change
that several *different* models place at the same sample is rarely an artefact of one model's
assumption. ``auto`` runs five members, each at its own published (TCPDBench / measured) default,
on the same series:

==================  ===============================================================
member              model
==================  ===============================================================
``binseg``          change in mean: R ``scale()``, squared error, MBIC (segview's default)
``binseg`` normal   change in mean and variance: R ``scale()``, Normal cost, MBIC
``amoc``            at most one change in mean (R changepoint, MBIC)
``bocpd``           Bayesian online, Normal-Gamma model, hazard 1/100 (TCPDBench)
``cpnp``            nonparametric PELT, empirical-distribution cost (TCPDBench), run on
                    ``y`` and on ``-y``: its change points are those found both ways
                    (within ``window``; the lower of the two), because its quantile grid
                    is not symmetric in sign
==================  ===============================================================

Vote. Every change point of every member is a candidate; its *support* is the number of members
with a change point within ``window`` samples of it. Candidates are taken by decreasing support
(ties: the tighter group, then the earlier sample); one is reported when its support is at least
``votes`` and it is more than ``window`` samples from every point already reported. The reported
location is the lower median of the supporting members' nearest change points. Each change point's
strength is its support divided by the number of members (0.6 = three of five agree).

Defaults, chosen by measurement (``docs/defaults.md``, ``tests/benchmarks/bench_defaults.py``):
``votes = 3`` (a majority of five) and ``window = 5`` samples (TCPDBench's scoring margin). The
members are pinned here, not read from each member's current defaults, so that a later change of a
member's default does not change ``auto`` without its own version bump.

Invariance. Every member standardises the series (R ``scale()``) or uses ranks of the values, and
every member's cost is symmetric in the sign of the data, so ``auto`` reports the same change points
for ``a * y + b`` for any ``a != 0`` (tested with negative ``a`` too).

Cost. The members' sum: about 30-410 ms of CPU on a 3,000-sample JMH series (median about 55 ms);
BOCPD (compiled) takes 8-320 ms of it, cpnp's two runs 7-55 ms, the other three a few milliseconds. The
members run once per series (the prepare stage): moving ``votes`` or ``window`` only votes again.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..params import ParamSpec, Params, Preset
from ..registry import Cost, DetectorSpec, get, register
from ..result import DetectionResult

#: (label, detector, pinned parameters) of the five members.
MEMBERS: tuple[tuple[str, str, Mapping[str, Any]], ...] = (
    # every binseg parameter is pinned (binseg's defaults may change; auto must not follow them
    # silently): min_size 1 and 2 are what binseg's automatic minimum gives for each cost
    ("binseg", "binseg", {"scale": "zscore", "cost": "l2", "penalty": "mbic", "min_size": 1,
                          "var_offset": 0.0, "noise_scale": False, "n_bkps": None,
                          "max_bkps": None, "rule": "segview"}),
    ("binseg normal", "binseg", {"scale": "zscore", "cost": "normal", "penalty": "mbic",
                                 "min_size": 2, "var_offset": 0.0, "noise_scale": False,
                                 "n_bkps": None, "max_bkps": None, "rule": "segview"}),
    ("amoc", "amoc", {}),
    ("bocpd", "bocpd", {"strength_lag": 10}),  # the one parameter its preset leaves open
    ("cpnp", "cpnp", {}),
)
#: members whose pinned parameters start from their ``tcpdbench`` preset
_FROM_TCPDBENCH = frozenset({"amoc", "bocpd", "cpnp"})
#: members not symmetric in the sign of the data: run on y and -y, keep what both find
_BOTH_SIGNS = frozenset({"cpnp"})


def _member_params(detector: str, pinned: Mapping[str, Any]) -> Params:
    spec = get(detector)
    return spec.coerce(dict(pinned), preset="tcpdbench" if detector in _FROM_TCPDBENCH else None)


def agreed(a: Sequence[int], b: Sequence[int], window: int) -> list[int]:
    """The changes two runs agree on: each point of ``a`` whose nearest point of ``b`` is within
    ``window`` gives the lower of the two, and the same from ``b`` (symmetric in ``a``, ``b``)."""
    def pairs(xs: Sequence[int], ys: Sequence[int]) -> set[int]:
        out: set[int] = set()
        if len(ys) == 0:
            return out
        ys_arr = np.asarray(ys, dtype=np.int64)
        for x in xs:
            j = int(np.argmin(np.abs(ys_arr - int(x))))
            if abs(int(ys_arr[j]) - int(x)) <= window:
                out.add(min(int(x), int(ys_arr[j])))
        return out
    return sorted(pairs(a, b) | pairs(b, a))


def vote(lists: Sequence[Sequence[int]], votes: int, window: int
         ) -> tuple[list[int], list[int]]:
    """``(change points, support)``: the majority vote of the members' change-point ``lists``
    (see the module docstring). Pure; deterministic for the same input."""
    arrays = [np.asarray(sorted({int(c) for c in cps}), dtype=np.int64) for cps in lists]
    cands: list[tuple[int, float, int, int]] = []
    for cps in arrays:
        for c in cps:
            near = []
            for other in arrays:
                if other.size == 0:
                    continue
                j = int(np.argmin(np.abs(other - c)))
                if abs(int(other[j]) - int(c)) <= window:
                    near.append(int(other[j]))
            near.sort()
            cands.append((len(near), float(near[-1] - near[0]), int(c),
                          near[(len(near) - 1) // 2]))
    cands.sort(key=lambda t: (-t[0], t[1], t[2]))
    out: list[int] = []
    support: list[int] = []
    for s, _, _, loc in cands:
        if s < votes:
            break
        if all(abs(loc - o) > window for o in out):
            out.append(loc)
            support.append(s)
    order = np.argsort(out, kind="stable")
    return [out[i] for i in order], [support[i] for i in order]


@dataclass(frozen=True)
class Members:
    """The prepare stage: every member's change points on the series (and cpnp's on ``-y``).
    Neither ``votes`` nor ``window`` changes them, so a slider move only votes again."""

    n: int
    #: (label, change points, change points on -y or None) per member, in MEMBERS order
    runs: tuple[tuple[str, tuple[int, ...], tuple[int, ...] | None], ...]


def prepare(values: NDArray[np.float64], params: Params, ctx: RunContext) -> Members:
    """Run the five members (the expensive part; independent of ``votes`` and ``window``)."""
    from ..api import run_spec  # the members run exactly as segview.detect runs them

    y = np.asarray(values, dtype=np.float64)
    n = y.size
    runs: list[tuple[str, tuple[int, ...], tuple[int, ...] | None]] = []
    for i, (label, detector, pinned) in enumerate(MEMBERS):
        ctx.check()
        spec = get(detector)
        p = _member_params(detector, pinned)
        flipped: tuple[int, ...] | None = None
        if n < spec.required_length(p):
            cps: tuple[int, ...] = ()  # too short for this member: it sees no change
        else:
            part = ctx.part(i / len(MEMBERS), (i + 1) / len(MEMBERS), label)
            cps = tuple(int(c) for c in run_spec(spec, y, p, part).change_points)
            if detector in _BOTH_SIGNS:
                flipped = tuple(int(c) for c in run_spec(spec, -y, p, part).change_points)
        runs.append((label, cps, flipped))
        ctx.progress((i + 1) / len(MEMBERS))
    return Members(n, tuple(runs))


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    n = np.asarray(values).size
    prep = ctx.prepared
    if not isinstance(prep, Members) or prep.n != n:
        prep = prepare(values, params, ctx)
    lists: list[list[int]] = []
    stats: dict[str, Any] = {}
    for label, member_cps, flipped in prep.runs:
        cps = list(member_cps)
        if flipped is not None:
            stats[f"member {label} (-y)"] = list(flipped)
            cps = agreed(cps, flipped, int(params["window"]))
        lists.append(cps)
        stats[f"member {label}"] = cps
    cps, support = vote(lists, int(params["votes"]), int(params["window"]))
    cps_arr = np.asarray([c for c in cps if 0 < c < n], dtype=np.int64)
    strengths = np.asarray([s / len(MEMBERS) for c, s in zip(cps, support) if 0 < c < n])
    stats["support"] = [int(s) for c, s in zip(cps, support) if 0 < c < n]
    notes = (f"majority vote: a change point where at least {params['votes']} of "
             f"{len(MEMBERS)} models (binseg, binseg normal, amoc, bocpd, cpnp) agree within "
             f"{params['window']} samples",)
    return DetectionResult("auto", params, cps_arr, stats=stats, notes=notes,
                           strengths=strengths,
                           strength_label=f"share of the {len(MEMBERS)} models that agree")


def cost(n: int, p: Params) -> Cost:
    """Time and memory of a run (read by segview.core.limits): the members' sum, dominated by
    BOCPD's run-length posterior (up to n^2 / 2 updates on a series without changes)."""
    total = Cost()
    for _, detector, pinned in MEMBERS:
        spec = get(detector)
        if spec.cost is None:
            continue
        c = spec.cost(n, _member_params(detector, pinned))
        for one in (c if isinstance(c, (tuple, list)) else (c,)):
            total = Cost(total.seconds + one.seconds, max(total.bytes, one.bytes),
                         one.why if one.seconds > total.seconds else total.why)
    return total


def _min_length(params: Params) -> int:
    return 2


AUTO = register(DetectorSpec(
    cost=cost,
    name="auto", label="Auto (vote of five models)", version="1", produces="change_points",
    params=(
        ParamSpec("votes", "int", 3, low=1, high=len(MEMBERS), step=1,
                  help=f"Models (of {len(MEMBERS)}) that must place a change within the window "
                       "for it to be reported (3 = a majority; measured default)."),
        ParamSpec("window", "int", 5, low=0, high=1000, step=1, unit="samples",
                  help="How close the models' change points must be to count as one change "
                       "(TCPDBench's scoring margin)."),
    ),
    run=_run, prepare=prepare, min_length=_min_length, affine_invariant=True,
    # on in a fresh explorer: the default change-point method (issue 28; docs/defaults.md)
    enabled_by_default=True,
    presets=(Preset("unanimous", {"votes": len(MEMBERS)},
                    help="only changes every model finds"),),
    citation="segview (docs/defaults.md); members: Killick et al. 2012 (binseg/MBIC), Adams & "
             "MacKay 2007 (bocpd), Haynes et al. 2017 (cpnp)",
    description="The default change-point method (segview detect's and the explorer's): the change points that at least 3 of 5 "
                "different models (change in mean, change in mean and variance, at most one "
                "change, Bayesian online, nonparametric) place within 5 samples of each other; "
                "each point's strength is the share of models that agree. Chosen by measurement "
                "on TCPD and checked not to flood benchmark series (docs/defaults.md). Known "
                "limits: slower than one method (0.03-0.4 s of CPU on 3,000 points); a change only one kind of "
                "model sees (e.g. a pure variance change) needs votes lowered.",
))
