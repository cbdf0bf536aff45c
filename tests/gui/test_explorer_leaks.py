"""State that leaked between datasets and jobs (issue 29, point 1), one test per leak: each
failed on the explorer before its state had an owner (segview.core.explorer_model)."""
from __future__ import annotations

import shutil
import threading

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from segview.core import registry
from segview.core.model import Series
from segview.core.params import ParamSpec
from segview.core.registry import DetectorSpec
from segview.core.result import DetectionResult, Track

from . import fakes
from .test_evaluate_view import evaluation, explorer, run_evaluation, write_predictions  # noqa: F401

STARTED = threading.Event()
MIN_PLOT_WIDTH = 240  # px the plot keeps on any screen (issue 29: "a minimum size")


def _sticky_run(values, params, ctx):
    """Like a long numba kernel: never looks at the cancel flag; on a long series it runs until
    the test ends (fakes.GATE) or 10 s."""
    STARTED.set()
    if values.size > 1000:
        fakes.GATE.wait(10)
    return DetectionResult("fake_sticky", params, np.array([values.size // 2], dtype=np.int64))


def _scaled_track_run(values, params, ctx):
    """A track in the series' own units (no fixed y range); waits for the GATE on a series whose
    first value is negative (the result stays pending)."""
    if values[0] < 0:
        fakes.GATE.wait(10)
    return DetectionResult("fake_scaled", params, np.array([], dtype=np.int64), None,
                           (Track("level", np.asarray(values, dtype=np.float64),
                                  threshold_param="level"),))


STICKY = DetectorSpec(name="fake_sticky", label="Fake sticky", version="1",
                      produces="change_points", params=(), run=_sticky_run)
SCALED = DetectorSpec(name="fake_scaled", label="Fake scaled", version="1",
                      produces="change_points",
                      params=(ParamSpec("level", "float", 500.0, 0.0, 2000.0, 1.0),),
                      run=_scaled_track_run)


@pytest.fixture(autouse=True)
def _started():
    STARTED.clear()
    yield


def one(sid: str, n: int, start: float = 0.0) -> list[Series]:
    return [Series(np.arange(n, dtype=np.float64) + start, None, sid)]


# --------------------------------------------------------------------------- (a)
def test_a_dataset_opened_after_an_evaluation_shows_none_of_its_truth(
        qtbot, evaluation, explorer, sample, tmp_path):  # noqa: F811
    ev = evaluation
    ev.add_prediction_file(write_predictions(sample, tmp_path / "pred.csv"))
    run_evaluation(qtbot, ev)
    sid = "s0065"
    with qtbot.waitSignal(explorer.series_shown, timeout=5000):
        assert explorer.dataset_panel.select(sid)
    assert explorer.series_plot.reference.isVisible()  # the evaluation's truth, on its dataset
    assert any(v is not None for v in ev.overlay.positions().values())
    # another dataset with the same series ids and no labels (as a session export would be)
    other = tmp_path / "export"
    other.mkdir()
    for f in sample.glob("*.json"):
        shutil.copy(f, other / f.name)
    with qtbot.waitSignal(explorer.series_shown, timeout=5000):
        assert explorer.open_paths([str(other)])
    if explorer.current.id != sid:
        with qtbot.waitSignal(explorer.series_shown, timeout=5000):
            assert explorer.dataset_panel.select(sid)
    assert not explorer.labels
    assert not explorer.series_plot.reference.isVisible()
    assert all(v is None for v in ev.overlay.positions().values())
    assert not explorer.main_plot.titleLabel.isVisible()


# --------------------------------------------------------------------------- (b)
def test_a_stuck_job_of_the_previous_file_does_not_hold_up_the_next_dataset(qtbot, make_window):
    win = make_window(STICKY)
    win.runner.pool.setMaxThreadCount(1)  # one thread: the stuck job would hold every job
    win.set_dataset(one("exec0", 100_000))  # a big file: its job runs for minutes
    qtbot.waitUntil(STARTED.is_set, timeout=5000)
    with qtbot.waitSignal(win.overlay_updated, timeout=5000):
        win.set_dataset(one("exec0", 500))  # the next dataset, the same series id
    assert win.results[("exec0", "fake_sticky")].change_points.tolist() == [250]


def test_escape_really_cancels_and_frees_the_pool(qtbot, make_window):
    win = make_window(STICKY, fakes.FAKE_CP, enabled={"fake_sticky"})
    win.runner.pool.setMaxThreadCount(1)
    win.set_dataset(one("exec0", 100_000))
    qtbot.waitUntil(STARTED.is_set, timeout=5000)
    messages: list[str] = []
    win.message_posted.connect(messages.append)
    win.cancel_jobs()  # Esc
    assert "Cancelled running jobs" in messages
    with qtbot.waitSignal(win.overlay_updated, timeout=5000,
                          check_params_cb=lambda name: name == "fake_cp"):
        win.set_method_enabled("fake_cp", True)


def test_an_unticked_method_does_not_show_running(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_SLOW)
    win.param_panel.set_params("fake_slow", fakes.FAKE_SLOW.coerce({"ms": 5000}), emit=True)
    with qtbot.waitSignal(win.runner.job_started, timeout=5000):
        win.set_dataset(one("exec0", 3000))
    item = win.method_list.item(0)
    assert "running" in item.text()
    win.set_method_enabled("fake_slow", False)
    assert "running" not in item.text() and win.model.status_of("fake_slow") == ""
    assert not win.model.jobs
    qtbot.waitUntil(lambda: not win.runner.running_lanes(), timeout=5000)  # it was cancelled
    # a late start of the unticked method's job (already queued) says nothing either
    assert not win.model.job_started("exec0", "fake_slow")


# --------------------------------------------------------------------------- (c)
def test_tracks_do_not_keep_the_previous_series_y_axis_while_results_are_pending(
        qtbot, make_window):
    win = make_window(SCALED)
    series = [Series(np.linspace(1000.0, 2000.0, 400), None, "big"),
              Series(np.linspace(-1.0, 1.0, 400), None, "small")]
    with qtbot.waitSignal(win.overlay_updated, timeout=5000):
        win.set_dataset(series)
    view = win.tracks.view("fake_scaled", "level")
    axis = view.plot.getAxis("left")
    assert axis.style["showValues"] and view.threshold.isVisible()
    with qtbot.waitSignal(win.series_shown, timeout=5000):
        win.dataset_panel.select("small")  # its result waits (GATE)
    assert not axis.style["showValues"]  # no numbers of the previous series' range
    assert not view.threshold.isVisible()
    assert win.tracks.is_pending("fake_scaled", "level")
    with qtbot.waitSignal(win.overlay_updated, timeout=15000):
        fakes.GATE.set()
    assert axis.style["showValues"] and not win.tracks.is_pending("fake_scaled", "level")


# --------------------------------------------------------------------------- (d)
def test_a_long_title_never_widens_the_plot(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.overlay_updated, timeout=5000):
        win.set_dataset(one("exec0", 1000))
    qtbot.wait(0)
    before = win.main_plot.width()
    text = "exec0: truth 2113 · " + " · ".join(f"method{k} {k * 37}, e=+{k}" for k in range(80))
    win.main_plot.setTitle(text, size="9pt")  # as the evaluation overlay does
    qtbot.waitUntil(lambda: win.main_plot.titleLabel.isVisible(), timeout=2000)
    QApplication.processEvents()  # the layout requests the title posted
    win.plot_widget.ci.layout.activate()
    view = win.plot_widget.viewport().width()
    assert win.main_plot.minimumWidth() < view  # the title sets no minimum width
    assert win.main_plot.width() <= before + 1
    assert win.plot_widget.ci.width() <= view + 1  # nothing of the plot under the docks
    label = win.main_plot.titleLabel
    assert label.toolTip() == text
    assert label.shown_text().endswith("\u2026") and len(label.shown_text()) < len(text)


# --------------------------------------------------------------------------- (e)
def _saved_big_layout() -> None:
    """A layout saved on a 1920x1080 screen with wide side panels (as a user might leave it)."""
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    big = MainWindow(Settings(), specs=[fakes.FAKE_CP])
    big.resize(1900, 1000)
    big.show()
    docks = big.docks
    big.resizeDocks([docks["Series"], docks["Parameters"]], [700, 900],
                    Qt.Orientation.Horizontal)
    big.settings.save_layout(big.saveGeometry(), big.saveState())
    big.settings.sync()
    big.close()
    big.deleteLater()


def test_a_layout_from_a_big_screen_never_hides_the_plot(qtbot):
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    registry.all_specs()
    registry.register(fakes.FAKE_CP)
    try:
        _saved_big_layout()
        assert Settings().layout()[1] is not None
        win = MainWindow(Settings(), specs=[fakes.FAKE_CP])  # the offscreen screen: 800x600
        qtbot.addWidget(win)
        win.show()
        qtbot.waitExposed(win)
        qtbot.waitUntil(lambda: win.central.width() >= MIN_PLOT_WIDTH, timeout=3000)
        assert win.central.height() >= 160
        assert win.central.geometry().right() <= win.width()
    finally:
        registry._REGISTRY.pop(fakes.FAKE_CP.name.lower(), None)


def test_a_layout_taller_than_a_short_screen_is_replaced(qtbot, monkeypatch):
    """Seen under Xvfb: a layout saved with narrow side panels and the Penalty path open kept
    the plot wide enough, but its stacked panels' minimum heights made the window 900 px tall on
    a 720 px screen (1280x720 at 150 %: 480 px available), the status bar and Messages off the
    screen's bottom; the default layout (Series and Warm-up as tabs) fits."""
    from PySide6.QtCore import QRect

    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    registry.all_specs()
    pelt = registry.get("pelt")  # a penalised method: the window has a Penalty path panel
    big = MainWindow(Settings(), specs=[pelt])
    big.show()
    qtbot.waitExposed(big)
    big.resize(400, 300)  # as small as the panels allow
    big.reset_layout()
    qtbot.wait(50)
    big.docks["Penalty path"].show()
    big.resize(1400, 860)
    qtbot.wait(50)
    big.settings.save_layout(big.saveGeometry(), big.saveState())
    big.settings.sync()
    big.close()
    big.deleteLater()

    short = QRect(0, 0, 853, 480)
    monkeypatch.setattr(MainWindow, "_available_geometry", lambda self: short)
    win = MainWindow(Settings(), specs=[pelt])
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.layout_checked, timeout=3000):
        win.show()
    qtbot.waitUntil(lambda: win.frameGeometry().height() <= short.height(), timeout=3000)


def test_view_reset_layout_shows_only_the_default_panels(qtbot, make_window):
    """Reset layout brings back a closed panel but does not open the Penalty path, which the
    default layout has hidden (it would also start computing a penalty path)."""
    win = make_window(registry.get("pelt"))  # a penalised method: the window has the dock
    qtbot.waitExposed(win)
    assert not win.docks["Penalty path"].isVisible()  # hidden on a first launch
    win.docks["Warm-up"].close()
    action = next(a for a in win.menuBar().actions() if a.text() == "&View").menu()
    reset = next(a for a in action.actions() if a.text() == "Reset &layout")
    reset.trigger()
    qtbot.waitUntil(lambda: win.docks["Warm-up"].isVisible(), timeout=2000)
    assert not win.docks["Penalty path"].isVisible()


def test_view_reset_layout_gives_the_plot_its_room(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    qtbot.waitExposed(win)
    win.resizeDocks([win.docks["Series"], win.docks["Parameters"]], [900, 900],
                    Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: win.central.width() < MIN_PLOT_WIDTH, timeout=2000)
    action = next(a for a in win.menuBar().actions() if a.text() == "&View").menu()
    reset = next(a for a in action.actions() if a.text() == "Reset &layout")
    reset.trigger()
    qtbot.waitUntil(lambda: win.central.width() >= MIN_PLOT_WIDTH, timeout=3000)
