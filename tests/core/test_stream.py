"""SteadyStateMonitor: incremental KB-KSSD (issue 16.5).

Golden values come from the spec's test vectors (shared/spec/kbkssd.md §10, copied here) and from
the authors' onsets in shared/data/jmh/labels.csv (column kbkssd_reference); prefix verdicts are
compared with the batch detector called through the public API.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import segview
from segview.core.errors import InputError, ParameterError
from segview.stream import SteadyStateMonitor, Verdict

SMALL = dict(outliers_window_size=10, prob_win_size=15, t_crit=4.0, step_win_size=5,
             prob_threshold=0.95)
# spec §10: (series, params, onset)
VECTORS = [
    ([10.0] * 20 + [5.0] * 40, SMALL, 20),                                      # TV-3
    ([100.0] + [10.0] * 59, SMALL, 15),                                         # TV-4
    ([7.0] * 60, SMALL, 15),                                                    # TV-5
    ([30.0] * 5 + [9.0] * 16 + [8.0] * 39, SMALL, 5),                           # TV-6
    ([5.0] * 30 + [10.0] * 30, {**SMALL, "prob_win_size": 20}, 0),              # TV-7
    ([30.0] * 3 + [10.0] * 29 + [8.0] * 28, SMALL, 15),                         # TV-8
]


def batch_onset(x, **params):
    return segview.detect(np.asarray(x, dtype=float), "kbkssd", **params).steady_start


def fed(x, **kw) -> tuple[SteadyStateMonitor, list[Verdict]]:
    m = SteadyStateMonitor(**kw)
    return m, [m.push(v) for v in x]


@pytest.mark.parametrize("x,params,onset", VECTORS)
def test_final_verdict_on_spec_vectors(x, params, onset):
    m, verdicts = fed(x, **params)
    assert not any(v.final for v in verdicts)
    v = m.close()
    assert v == Verdict(True, onset, True, len(x), len(x), v.warmup_end)
    assert m.close() is v  # idempotent


def test_total_makes_the_last_push_final():
    x, params, onset = VECTORS[0]
    m, verdicts = fed(x, total=len(x), **params)
    assert [v.final for v in verdicts] == [False] * (len(x) - 1) + [True]
    assert verdicts[-1].steady is True and verdicts[-1].since == onset
    with pytest.raises(ParameterError, match="closed"):
        m.push(1.0)


def test_verdicts_equal_batch_on_every_checked_prefix():
    rng = np.random.default_rng(7)
    x = np.concatenate((np.linspace(20, 10, 150) + rng.normal(0, 1, 150),
                        10 + rng.normal(0, 1, 450)))
    m, verdicts = fed(x, growth=0.05)
    checked = sorted({v.checked for v in verdicts if v.checked})
    assert len(checked) > 20 and checked[0] == m.min_length == 101
    for v in verdicts:
        assert v.seen >= v.checked
        if v.checked:
            assert v.since == batch_onset(x[:v.checked])
            assert v.steady is (True if v.since is not None else None)
        else:
            assert v.steady is None and v.seen < m.min_length
    assert m.close().since == batch_onset(x)


def test_every_prefix_with_growth_zero():
    x, params, _ = VECTORS[3]
    m, verdicts = fed(x, growth=0, **params)
    for t, v in enumerate(verdicts, start=1):
        if t >= m.min_length:
            assert v.checked == t and v.since == batch_onset(x[:t], **params)


def test_extend_equals_push_one_at_a_time():
    rng = np.random.default_rng(3)
    x = np.concatenate(([50.0], 12 + rng.normal(0, 1, 900)))
    m1, verdicts = fed(x)
    m2 = SteadyStateMonitor()
    cut = [0, 57, 101, 102, 400, 401, 777, 901]
    last = [m2.extend(x[a:b]) for a, b in zip(cut[:-1], cut[1:])]
    assert last == [verdicts[b - 1] for b in cut[1:]]
    assert m2.first_steady == m1.first_steady and m2.work == m1.work


def test_min_steady_length_delays_the_stop():
    rng = np.random.default_rng(5)
    x = 10 + rng.normal(0, 1, 1500)
    m1, _ = fed(x)
    m2, _ = fed(x, min_steady_length=500)
    assert m1.first_steady.seen == 101
    first = m2.first_steady
    assert first.seen - first.since >= 501
    assert batch_onset(x[:first.seen], min_steady_length=500) == first.since


def test_work_is_linear_in_the_number_of_measurements():
    """The cost model of the docstring: sum of checked prefix lengths <= n (1 + (1 + g) / g)."""
    rng = np.random.default_rng(11)
    for growth in (0.02, 0.25):
        per_sample = []
        for n in (1_000, 10_000):
            m = SteadyStateMonitor(growth=growth)
            m.extend(10 + rng.normal(0, 1, n))
            assert m.work <= n * (1 + (1 + growth) / growth)
            per_sample.append(m.work / n)
        assert per_sample[1] <= 1.25 * per_sample[0] + 1


def test_bad_input_names_what_and_where():
    m = SteadyStateMonitor()
    m.extend([1.0, 2.0])
    with pytest.raises(InputError, match="index 3"):
        m.extend([1.0, float("nan")])
    with pytest.raises(InputError, match="at least 101"):
        SteadyStateMonitor().close()
    with pytest.raises(InputError, match="total=3"):
        SteadyStateMonitor(total=3).extend([1.0] * 4)
    with pytest.raises(ParameterError, match="total"):
        SteadyStateMonitor(total=0)
    with pytest.raises(ParameterError, match="growth"):
        SteadyStateMonitor(growth=-1)
    with pytest.raises(ParameterError, match="t_crit"):
        SteadyStateMonitor(t_crit=-3)
    with pytest.raises(ParameterError, match="unknown"):
        SteadyStateMonitor(nonsense=1)


def test_import_segview_stays_light():
    code = ("import sys, segview; assert segview.SteadyStateMonitor.__name__; "
            "print(sorted(m for m in ('numba', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- the JMH series (acceptance of issue 16.5) ------------------------------------------------

def _jmh(jmh_dir, sid):
    return np.asarray(json.loads((jmh_dir / "series" / f"{sid}.json").read_text())[0])


def test_final_verdict_equals_reference_on_every_jmh_series(jmh_dir, jmh_labels):
    """All 350 series: the final verdict is the authors' onset; each checked prefix is batch's.

    growth=1 checks prefixes 101, 202, 404, 808, 1616 and the full 3000 (the default schedule is
    covered on every series by the slow test below).
    """
    assert len(jmh_labels) == 350
    n_checked = 0
    for sid, label in jmh_labels.items():
        x = _jmh(jmh_dir, sid)
        m = SteadyStateMonitor(total=x.size, growth=1.0)
        verdicts = [m.extend(chunk) for chunk in np.array_split(x, 7)]
        v = verdicts[-1]
        assert v.final and v.checked == x.size and v.steady is not None
        assert v.since == label.onsets["kbkssd_reference"], sid
        for p in verdicts[:-1]:
            if p.checked:
                assert not p.final and p.since == batch_onset(x[:p.checked]), (sid, p.checked)
                n_checked += 1
    assert n_checked >= 350


@pytest.mark.slow
def test_default_schedule_on_every_jmh_series(jmh_dir, jmh_labels):
    """Default schedule: the first 'steady' and the final verdict equal batch's.

    Fed in chunks of 97 (the same verdicts as one push at a time, see
    test_extend_equals_push_one_at_a_time) to keep the Python call overhead out of the runtime.
    """
    for sid, label in jmh_labels.items():
        x = _jmh(jmh_dir, sid)
        for ell in (1, 500):
            m = SteadyStateMonitor(total=x.size, min_steady_length=ell)
            for chunk in np.array_split(x, np.arange(97, x.size, 97)):
                v = m.extend(chunk)
            assert v.final and v.since == batch_onset(x, min_steady_length=ell)
            first = m.first_steady
            if first is not None:
                assert first.since == batch_onset(x[:first.seen], min_steady_length=ell)
            if ell == 1:
                assert v.since == label.onsets["kbkssd_reference"], sid


def test_continuation_changes_every_verdict(jmh_dir, jmh_labels):
    """The docstring's proof that no proper prefix is final, on real series."""
    w_o, h = 100, 15
    for sid in sorted(jmh_labels)[::35]:
        x = _jmh(jmh_dir, sid)
        for ell in (1, 500):
            for t in (101, 777, x.size):
                before = batch_onset(x[:t], min_steady_length=ell)
                tail = np.concatenate((np.full(2 * w_o, x[t - 1]),
                                       np.full(2 * w_o + max(h, ell + 1, 3), -2.0 ** 50)))
                after = batch_onset(np.concatenate((x[:t], tail)), min_steady_length=ell)
                assert after is not None and after >= t and after != before
