"""No default floods (issue 28 point 5): on the 350 JMH series of ``shared/data/jmh`` (3,000 points
each), no change-point method at its defaults may report more than 1 % of the series' length as change
points on more than 10 % of the series, nor more than 2 % on any series. The rule is the issue's; the
series are real benchmark data (autocorrelated, with GC spikes) that no one on this team wrote.

Every registered change-point detector that is on by default is checked (``slow``: auto and autoparm
take minutes over 350 series; the rest seconds)."""
from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

import segview
from segview.core import registry

pytestmark = [pytest.mark.shared, pytest.mark.slow]

DEFAULT_METHODS = sorted({s.name for s in registry.all_specs()
                          if s.produces == "change_points" and s.enabled_by_default}
                         | {"auto"})  # auto: segview detect's default method
#: Known violations, measured and left for a decision (docs/defaults.md): strict, so the test fails
#: (and this list must shrink) the day the default is fixed.
KNOWN = {
    "pelt": "one series (63 change points, 2.10 % of n) above 2 %; min_size=5 would fix it "
            "(measured 0.47 % / 1.50 %, TCPD unchanged) but changes pelt's results",
    "op": "the same series as pelt (2.10 % of n)",
}
#: Too slow for every CI run: autoparm's exact search takes about 2 s a series (12 minutes of CPU
#: over the 350); issue 28 measured its default flooding (5.87 % / 6.37 % of n), docs/defaults.md.
SKIPPED = {"autoparm": "about 2 s CPU a series: run it by hand (issue 28 measured it flooding)"}
PARAMS = [pytest.param(m, marks=pytest.mark.xfail(reason=KNOWN[m], strict=True)) if m in KNOWN
          else pytest.param(m, marks=pytest.mark.skip(reason=SKIPPED[m])) if m in SKIPPED
          else m for m in DEFAULT_METHODS]


def _share(item):
    method, values = item
    return len(segview.detect(values, method).change_points) / len(values)


@pytest.mark.parametrize("method", PARAMS)
def test_no_default_floods_the_jmh_series(jmh_series, method):
    items = [(method, np.asarray(s.values)) for _, s in sorted(jmh_series.items())]
    assert len(items) == 350
    with multiprocessing.get_context("fork").Pool(2) as pool:
        shares = np.array(pool.map(_share, items, chunksize=8))
    over = int((shares > 0.01).sum())
    assert over <= 0.10 * len(shares), f"{method}: {over} series above 1 % of n"
    assert shares.max() <= 0.02, f"{method}: {100 * shares.max():.2f} % of n on one series"


def test_the_rule_catches_the_paper_configurations(jmh_series):
    """The test can fail: rfpop's faithful configuration (version 1's default) floods."""
    items = [np.asarray(s.values) for _, s in sorted(jmh_series.items())][:60]
    shares = np.array([len(segview.detect(v, "rfpop", preset="faithful").change_points) / len(v)
                       for v in items])
    assert (shares > 0.01).sum() > 0.10 * len(shares) or shares.max() > 0.02
