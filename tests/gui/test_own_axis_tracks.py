"""A diagnostic track whose x is not the sample index (segneigh's criterion, one point per number of
segments) gets an x axis of its own; a track over the samples stays linked to the series' axis.

Before, the criterion's five points were x-linked to the series: they sat at x = 0..4 of a
400-sample axis, squashed against the left edge of the plot."""
from __future__ import annotations

import numpy as np

from segview.core import registry
from segview.core.api import run_spec
from segview.core.io import load
from segview.core.model import Series

from . import fakes


def _segneigh_window(qtbot, make_window, series):
    spec = registry.get("segneigh")
    win = make_window(spec, fakes.FAKE_ONSET)
    seen: set[str] = set()
    win.overlay_updated.connect(seen.add)
    win.set_dataset([series])
    qtbot.waitUntil(lambda: {"segneigh", "fake_onset"} <= seen, timeout=60000)
    win.set_focus("segneigh")
    return spec, win


def test_criterion_has_its_own_axis_over_the_number_of_segments(qtbot, make_window, sample):
    src = load(sample / "s0002.json")[0]
    series = Series(src.values[:400], id="s0002-head")
    spec, win = _segneigh_window(qtbot, make_window, series)
    q = spec.defaults()["max_segments"]  # 5: segneigh's default (docs/algorithms/segneigh.md)
    view = win.tracks.view("segneigh", "criterion")
    plot = view.plot
    assert plot in win.layout_item.items and plot.isVisible()
    x, _ = view.curve.getData()
    assert list(x) == [float(k) for k in range(1, q + 1)]
    lo, hi = plot.vb.viewRange()[0]
    assert lo == 0.5 and hi == q + 0.5  # every point in view, half a step of room each side
    assert plot.vb.linkedView(0) is None
    # the title sits above the view box, not over the points (the first, largest value is top left)
    assert plot.titleLabel is view.title and plot.titleLabel.isVisible()
    assert view.title.full_text == "Segment neighbourhood: criterion"
    assert view.title.parentItem() is not plot.vb
    axis = plot.getAxis("bottom")
    assert axis.isVisible() and axis.labelText == "segments"
    # zooming the series leaves the criterion's axis alone
    win.main_plot.setXRange(100, 200, padding=0)
    assert plot.vb.viewRange()[0] == [lo, hi]
    # the number of segments chosen is ringed
    chosen = run_spec(spec, series, spec.defaults()).stats["n_segments"]
    mx, my = view.mark.getData()
    assert list(mx) == [float(chosen)]
    # the series' sample axis keeps its values, on the last row linked to it (the method lanes)
    lanes_axis = win.lanes.plot.getAxis("bottom")
    assert lanes_axis.isVisible() and lanes_axis.style["showValues"]


def test_a_track_over_the_samples_stays_linked(qtbot, make_window, sample):
    src = load(sample / "s0002.json")[0]
    spec, win = _segneigh_window(qtbot, make_window, Series(src.values[:400], id="s0002-head"))
    win.set_focus("fake_onset")
    linked = win.tracks.view("fake_onset", "relative level").plot
    assert linked in win.layout_item.items
    assert linked.vb.linkedView(0) is win.main_plot.vb
    assert win.tracks.view("segneigh", "criterion").plot not in win.layout_item.items


def test_series_x_values_do_not_move_the_criterion(qtbot, make_window, sample):
    # a series with its own x (e.g. problem sizes): sample indices map onto it, segment counts not
    src = load(sample / "s0002.json")[0]
    series = Series(src.values[:400], x=np.linspace(1000.0, 5000.0, 400), id="s0002-x")
    _spec, win = _segneigh_window(qtbot, make_window, series)
    x, _ = win.tracks.view("segneigh", "criterion").curve.getData()
    assert list(x) == [1.0, 2.0, 3.0, 4.0, 5.0]
    fx, _ = win.tracks.view("fake_onset", "relative level").curve.getData()
    assert fx[0] == 1000.0 and fx[-1] == 5000.0
