"""Every registered detector (whatever has landed in the registry) draws its overlay in the window,
and what is drawn is what ``segview.detect`` returns for the same series and parameters."""
from __future__ import annotations

import pytest

from segview.core import registry
from segview.core.api import run_spec
from segview.core.io import load
from segview.core.model import Series

SPECS = registry.all_specs()


@pytest.mark.parametrize("name", [s.name for s in SPECS] or ["none"])
def test_registered_detector_draws_its_overlay(qtbot, make_window, sample, name):
    if name == "none":
        pytest.skip("no detector registered yet")
    spec = registry.get(name)
    src = load(sample / "s0065.json")[0]
    series = Series(src.values[:400], id="s0065-head")  # short: every detector runs in seconds
    expected = run_spec(spec, series, spec.defaults())
    win = make_window(spec)
    with qtbot.waitSignal(win.overlay_updated, timeout=60000,
                          check_params_cb=lambda m: m == name):
        win.set_dataset([series])
    lane = win.lanes[name]
    cps = [float(c) for c in expected.change_points]
    assert lane.positions() == cps
    if spec.produces == "onset" and expected.steady_start is not None:
        assert lane.region_bounds() == (float(expected.steady_start), 400.0)
    else:
        assert lane.region_bounds() is None
    shown = {v.name for v in win.tracks.all_views() if v.method == name}
    assert shown == {t.name for t in expected.tracks}
