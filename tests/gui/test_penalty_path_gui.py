"""Change-point strengths in the lanes and the Penalty path dock (issue 28 points 2 and 3)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from segview.core import registry
from segview.core.registry import DetectorSpec
from segview.core.result import DetectionResult
from segview.gui.plots.lanes import TICK


def _strong_run(values, params, ctx):
    """Change points at 10, 20, 30 with probabilities 0.9, 0.2, 0.5 (a fake, as bocpd's)."""
    return DetectionResult("fake_strong", params, np.array([30, 10, 20]),
                           strengths=[0.5, 0.9, 0.2], strength_label="posterior probability")


FAKE_STRONG = DetectorSpec(name="fake_strong", label="Fake strengths", version="1",
                           produces="change_points", params=(), run=_strong_run)


def open_file(qtbot, win, path, method):
    seen: set[str] = set()
    win.overlay_updated.connect(seen.add)
    assert win.open_paths([str(path)])
    qtbot.waitUntil(lambda: method in seen, timeout=300000)


@pytest.fixture
def pelt_window(make_window, tmp_path):
    def make(values):
        path = tmp_path / "s.json"
        path.write_text(json.dumps([list(values)]))
        win = make_window(registry.get("pelt"))
        win.param_panel.set_value("pelt", "scale", "none")
        win.param_panel.set_value("pelt", "penalty", 3.0)
        return win, path
    return make


def test_lane_ticks_carry_the_strengths(qtbot, make_window, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps([[float(i % 3) for i in range(40)]]))
    win = make_window(FAKE_STRONG)
    open_file(qtbot, win, path, "fake_strong")
    lane = win.lanes["fake_strong"]
    assert lane.positions() == [10.0, 20.0, 30.0]
    assert list(lane.strengths) == [0.9, 0.2, 0.5]  # follow the sorted change points
    assert lane.strength_label == "posterior probability"
    xs, ys = lane.ticks.getData()
    heights = ys[1::2] - ys[0::2]
    full = TICK[1] - TICK[0]
    # docs/strengths.md: a probability p draws a tick of (0.15 + 0.85 p) of the full height
    assert list(xs[0::2]) == [10.0, 20.0, 30.0]
    assert heights == pytest.approx([full * (0.15 + 0.85 * p) for p in (0.9, 0.2, 0.5)])
    assert "strength 0.2 (posterior probability)" in lane.tooltip_at(20.3, 1.0)
    assert lane.tooltip_at(15.0, 1.0) == ""


def test_lane_ticks_of_unbounded_strengths_are_relative(qtbot, make_window, tmp_path):
    from segview.gui.plots.lanes import tick_fractions
    assert tick_fractions([54.0, 6.0]) == pytest.approx([1.0, 0.15 + 0.85 * 6.0 / 54.0])
    assert tick_fractions(None) is None


def test_choosing_a_point_of_the_path_sets_the_lane(qtbot, pelt_window):
    rng = np.random.default_rng(5)
    values = np.repeat([0.0, 4.0, 1.0, 6.0, 5.0], 20) + rng.normal(0, 1, 100)
    win, path = pelt_window(values)
    open_file(qtbot, win, path, "pelt")
    with qtbot.waitSignal(win.runner.path_ready, timeout=300000):
        win.show_penalty_path("pelt")
    panel = win.penalty_panel
    crops = panel.path
    assert crops is not None and crops.method == "pelt" and len(crops) >= 3
    shown = [float(c) for c in win.lanes["pelt"].positions()]
    differs = [j for j in range(len(crops)) if list(map(float, crops.segmentations[j])) != shown]
    # the elbow's star is drawn over its point: a click there must still choose it
    assert crops.elbow in differs
    i = crops.elbow
    x, y = panel.point_position(i)
    scene = panel.plot.vb.mapViewToScene(QPointF(x, y))
    pos = panel.plot_widget.mapFromScene(scene)
    with qtbot.waitSignal(win.overlay_updated, timeout=300000,
                          check_params_cb=lambda name: name == "pelt"):
        qtbot.mouseClick(panel.plot_widget.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert win.lanes["pelt"].positions() == [float(c) for c in crops.segmentations[i]]
    penalty = win.params["pelt"]["penalty"]
    assert crops.penalty_low[i] <= penalty <= crops.penalty_high[i]
    assert panel.current == i


def test_list_entry_selects_a_segmentation(qtbot, pelt_window):
    rng = np.random.default_rng(6)
    values = np.repeat([0.0, 3.0, -1.0, 2.0], 25) + rng.normal(0, 1, 100)
    win, path = pelt_window(values)
    open_file(qtbot, win, path, "pelt")
    with qtbot.waitSignal(win.runner.path_ready, timeout=300000):
        win.show_penalty_path("pelt")
    panel = win.penalty_panel
    last = len(panel.path) - 1  # the fewest change points
    with qtbot.waitSignal(win.overlay_updated, timeout=300000,
                          check_params_cb=lambda name: name == "pelt"):
        panel.list.itemActivated.emit(panel.list.item(last))
    assert win.lanes["pelt"].positions() == [float(c) for c in panel.path.segmentations[last]]
