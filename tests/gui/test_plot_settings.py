"""The plots keep repaints cheap: long series are drawn peak-downsampled to the view's pixels and
the grid is opaque and beneath the data (a translucent grid cost ~10 ms per axis per repaint)."""
from __future__ import annotations

import numpy as np

from segview.core.model import Series

from . import fakes


def test_a_million_points_are_drawn_downsampled(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    rng = np.random.default_rng(0)
    n = 1_000_000
    big = Series(np.cumsum(rng.normal(size=n)), id="big")
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        win.set_dataset([big])
    win.plot_widget.viewport().repaint()
    main = win.series_plot.curve
    assert main.opts["autoDownsample"] and main.opts["downsampleMethod"] == "peak"
    assert main.opts["clipToView"]
    for item in (main, win.overview.curve):
        shown = item.curve.xData
        assert shown is not None and 0 < shown.size < n // 50, shown.size
    # the overview draws a min/max envelope of fixed size (no automatic factor, which pyqtgraph
    # froze at the strip's width before layout: a decimated sawtooth); it keeps the extremes
    assert not win.overview.curve.opts["autoDownsample"]
    ys = win.overview.curve.curve.yData
    assert ys.max() == big.values.max() and ys.min() == big.values.min()


def test_overview_draws_every_sample_of_a_short_series(qtbot, make_window, sample):
    import segview
    series = list(segview.load(sample))
    win = make_window(fakes.FAKE_CP)
    win.resize(300, 200)  # data arrive while the strip is narrow, as at start-up
    win.set_dataset(series)
    qtbot.waitUntil(lambda: win.overview.curve.curve.yData is not None)
    win.resize(1400, 860)
    win.plot_widget.viewport().repaint()
    ys = win.overview.curve.curve.yData
    assert ys.size == len(series[0]) and np.array_equal(ys, series[0].values)


def test_grid_is_opaque_and_under_the_data(qtbot, make_window):
    win = make_window(fakes.FAKE_ONSET)
    plots = [win.main_plot] + [v.plot for v in win.tracks.all_views()]
    for plot in plots:
        for name in ("left", "bottom"):
            axis = plot.getAxis(name)
            assert axis.grid is not False
            assert axis.style["tickAlpha"] == 255
            assert axis.zValue() < plot.vb.zValue()


def test_reset_zoom_shows_the_whole_series_again(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    n = len(win.current)
    win.main_plot.setXRange(1000, 1100, padding=0)
    win.plot_widget.viewport().repaint()  # the clipped curve now holds only the zoomed samples
    win.reset_zoom()
    (x0, x1), (y0, y1) = win.main_plot.vb.viewRange()
    assert x0 <= 0 and x1 >= n - 1
    win.plot_widget.viewport().repaint()
    (_, _), (y0, y1) = win.main_plot.vb.viewRange()
    values = win.current.values
    assert y0 <= values.min() and y1 >= values.max()


def test_overview_spans_the_series(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    n = len(win.current)
    (x0, x1), _ = win.overview.plot.vb.viewRange()
    assert -0.02 * n <= x0 <= 0 and n - 1 <= x1 <= 1.02 * n
