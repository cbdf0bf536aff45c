"""Issue 30, item 10: cost warnings for every method come from one table, each detector's own
``cost`` declaration beside its parameters; ``segview.core.limits`` reads nothing else.

Before: limits.py held per-method rules for four detectors only, so nrss on 1e7 samples (about
6.5 GB of window models, measured ~690 bytes a sample) and autoparm's GA with bootstrap=1000
(1000 GA runs of seconds each) started without the warning the others give.
"""
from __future__ import annotations

import math

import pytest

from segview.core import limits, registry
from segview.core.limits import MEMORY_LIMIT, TIME_LIMIT, cost_warning, estimate
from segview.core.params import ParamSpec
from segview.core.registry import Cost, DetectorSpec
from segview.core.result import DetectionResult


def _warn(name: str, n: int, **params):
    spec = registry.get(name)
    return cost_warning(spec, n, spec.coerce(params))


@pytest.mark.parametrize("spec", registry.all_specs(), ids=lambda s: s.name)
def test_every_registered_detector_declares_its_cost(spec):
    assert callable(spec.cost), f"{spec.name} declares no cost(n, params)"
    for n in (10, 1000, 10**6, 10**8):
        costs = estimate(spec, n, spec.defaults())
        assert costs and all(isinstance(c, Cost) for c in costs), spec.name
        for c in costs:
            assert math.isfinite(c.seconds) and c.seconds >= 0 and c.bytes >= 0, (spec.name, c)
    small = max(c.seconds for c in estimate(spec, 1000, spec.defaults()))
    big = max(c.seconds for c in estimate(spec, 10**6, spec.defaults()))
    assert big >= small, f"{spec.name}: a longer series is not estimated dearer"


def test_nrss_on_ten_million_points_warns():
    note = _warn("nrss", 10**7)
    assert note is not None and note.startswith("nrss: ") and "GB" in note
    assert _warn("nrss", 10**7, mode="scan", bin=100) is None  # a hundredth of the windows


def test_autoparm_bootstrap_1000_warns_in_both_modes():
    note = _warn("autoparm", 300, mode="ga", bootstrap=1000)  # 1000 GA runs of ~1.5 s each
    assert note is not None and "bootstrap=1000" in note
    assert "bootstrap=1000" in _warn("autoparm", 3000, bootstrap=1000)
    assert _warn("autoparm", 300, mode="ga") is None


def test_limits_reads_only_the_declarations():
    assert not hasattr(limits, "BUILTIN")  # no per-method rules left in limits.py

    def run(values, params, ctx):
        return DetectionResult(method="x", steady_start=None)

    quiet = DetectorSpec(name="costly", label="Costly", version="1", produces="onset",
                         params=(ParamSpec("k", "int", 1, 1, 10**9),), run=run,
                         cost=lambda n, p: Cost(seconds=p["k"] * n * 1e-6))
    assert cost_warning(quiet, 1000, quiet.coerce({"k": 1})) is None
    slow = cost_warning(quiet, 10**6, quiet.coerce({"k": 10**3}))  # 1000 s > TIME_LIMIT
    assert slow is not None and slow.startswith("costly: ") and "minutes" in slow
    big = DetectorSpec(name="big", label="Big", version="1", produces="onset", params=(), run=run,
                       cost=lambda n, p: [Cost(bytes=n * 1e3, why=f"{n} samples x 1 kB")])
    assert cost_warning(big, 10**7, big.defaults()) == "big: 10000000 samples x 1 kB"
    assert cost_warning(big, 10**5, big.defaults()) is None
    assert TIME_LIMIT == limits.WORK_LIMIT / registry.STEPS_PER_SECOND and MEMORY_LIMIT == 2**31
