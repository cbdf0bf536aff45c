"""The main window over the bundled sample with fake detectors (pytest-qt, offscreen)."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from segview.core import registry
from segview.core.io.labels_csv import read_labels
from segview.gui.export import CSV_COLUMNS

from . import fakes


def wait_overlays(qtbot, win, names, timeout=10000):
    """Wait until every method in ``names`` drew its overlay for the current series."""
    seen: set[str] = set()
    win.overlay_updated.connect(seen.add)
    return lambda: qtbot.waitUntil(lambda: set(names) <= seen, timeout=timeout)


def open_sample(qtbot, win, sample, names):
    wait = wait_overlays(qtbot, win, names)
    assert win.open_paths([str(sample)])
    wait()


def expected_onset(values, level):
    rel = np.abs(values) / np.max(np.abs(values))
    above = np.flatnonzero(rel > level)
    return int(above[-1] + 1) if above.size else 0


def test_window_is_built_from_the_registry(qtbot):
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    with fakes.registered(*fakes.FAST):
        settings = Settings()
        settings.set_enabled_methods(set())  # build only; compute nothing
        win = MainWindow(settings)
        qtbot.addWidget(win)
        names = [win.method_list.item(i).data(256) for i in range(win.method_list.count())]
        assert names == [s.name for s in registry.all_specs()]
        for spec in registry.all_specs():
            assert set(win.param_panel.boxes[spec.name].editors) == {p.name for p in spec.params}
            assert win.param_panel.params(spec.name) == spec.defaults()  # faithful defaults shown


def test_sample_every_method_draws_its_overlay(qtbot, make_window, sample):
    win = make_window(*fakes.FAST)
    open_sample(qtbot, win, sample, ["fake_onset", "fake_cp"])
    s = win.current
    labels = read_labels(sample / "labels.csv")
    assert s.id == "s0002" and len(s) == 3000
    assert win.lanes["fake_cp"].positions() == [float(x) for x in range(100, 3000, 100)]
    onset = expected_onset(s.values, 0.5)
    assert win.lanes["fake_onset"].region_bounds() == (onset, 3000.0)
    assert win.series_plot.reference.value() == labels["s0002"].jagt_index == 1102
    model = win.dataset_panel.model
    assert model.data(model.index(0, 2)) == "steady"
    assert model.cell("s0002", "fake_onset") == str(onset)
    assert [v.name for v in win.tracks.views()] == ["relative level"]
    assert win.tracks.view("fake_onset", "relative level").threshold.value() == 0.5


def test_slider_move_updates_the_overlay(qtbot, make_window, sample):
    win = make_window(*fakes.FAST)
    open_sample(qtbot, win, sample, ["fake_cp"])
    editor = win.param_panel.editor("fake_cp", "every")
    with qtbot.waitSignal(win.overlay_updated, timeout=5000,
                          check_params_cb=lambda name: name == "fake_cp"):
        editor.slider.setValue(editor.value_to_tick(750))
    assert editor.spin.value() == 750
    assert win.lanes["fake_cp"].positions() == [750.0, 1500.0, 2250.0]


def test_twenty_rapid_slider_moves_give_one_final_result(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_SLOW)
    win.param_panel.set_params("fake_slow", fakes.FAKE_SLOW.coerce({"ms": 150}), emit=True)
    open_sample(qtbot, win, sample, ["fake_slow"])
    fakes.LOG.reset()
    results = []
    win.runner.result_ready.connect(lambda lane, res: results.append(res.params["at"]))
    editor = win.param_panel.editor("fake_slow", "at")
    # wait for this lane's final result, not for the whole runner to go idle: the sample's
    # benchmark warm-up analysis shares the runner and can take a minute on a loaded machine
    with qtbot.waitSignal(win.runner.result_ready, timeout=60000,
                          check_params_cb=lambda lane, res: res.params["at"] == 220):
        for at in range(201, 221):
            editor.slider.setValue(editor.value_to_tick(at))
    qtbot.waitUntil(lambda: not win.runner.running_lanes(), timeout=60000)
    assert results == [220]
    assert len(fakes.LOG.calls) <= 2
    assert win.lanes["fake_slow"].positions() == [220.0]
    assert win.lanes["fake_slow"].region_bounds() == (220.0, 3000.0)


def test_detector_error_shows_a_message_and_the_app_keeps_working(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_BOOM, fakes.FAKE_CP)
    messages = []
    win.message_posted.connect(messages.append)
    open_sample(qtbot, win, sample, ["fake_cp"])
    qtbot.waitUntil(lambda: any("Fake broken" in m for m in messages), timeout=5000)
    assert any("ZeroDivisionError" in m for m in messages)
    assert win.dataset_panel.model.cell("s0002", "fake_boom") == "error"
    with qtbot.waitSignal(win.overlay_updated, timeout=5000,
                          check_params_cb=lambda name: name == "fake_cp"):
        win.next_series()
    assert win.current.id == "s0005"
    assert win.lanes["fake_cp"].visible_count() == 29


def test_closing_during_a_running_job_leaves_no_thread(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_SLOW)
    win.param_panel.set_params("fake_slow", fakes.FAKE_SLOW.coerce({"ms": 5000}), emit=True)
    assert win.open_paths([str(sample)])
    qtbot.waitUntil(lambda: len(fakes.LOG.calls) == 1, timeout=5000)
    assert win.runner.running_lanes()
    assert win.cancel_button.isVisible()
    win.close()
    assert win.runner.pool.activeThreadCount() == 0
    assert fakes.LOG.finished == []


def test_threshold_line_writes_back_through_the_panel(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_ONSET)
    open_sample(qtbot, win, sample, ["fake_onset"])
    line = win.tracks.view("fake_onset", "relative level").threshold
    with qtbot.waitSignal(win.overlay_updated, timeout=5000):
        line.setPos(0.2)
        line.sigPositionChangeFinished.emit(line)
    assert win.param_panel.params("fake_onset")["level"] == pytest.approx(0.2)
    onset = expected_onset(win.current.values, 0.2)
    assert win.lanes["fake_onset"].region_bounds() == (onset, 3000.0)


def test_method_toggle_hides_overlay_and_settings_persist(qtbot, make_window, sample):
    from segview.gui.settings import Settings

    win = make_window(*fakes.FAST)
    open_sample(qtbot, win, sample, ["fake_onset", "fake_cp"])
    win.set_method_enabled("fake_cp", False)
    assert win.lanes["fake_cp"].visible_count() == 0
    assert Settings().enabled_methods() == {"fake_onset"}
    win.param_panel.set_value("fake_onset", "level", 0.25)
    assert Settings().params(fakes.FAKE_ONSET)["level"] == 0.25
    win.restore_faithful_defaults()
    assert win.param_panel.params("fake_onset") == fakes.FAKE_ONSET.defaults()
    assert Settings().params(fakes.FAKE_ONSET) == fakes.FAKE_ONSET.defaults()


def test_navigation_and_search(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_CP)
    open_sample(qtbot, win, sample, ["fake_cp"])
    win.next_series()
    assert win.current.id == "s0005"
    win.previous_series()
    assert win.current.id == "s0002"
    assert win.jump_to("s0141") and win.current.id == "s0141"
    assert win.jump_to("3") and win.current.id == "s0006"
    win.dataset_panel.search.setText("008")
    assert win.dataset_panel.proxy.rowCount() == 2  # s0008, s0086


def test_exports(qtbot, make_window, sample, tmp_path):
    win = make_window(*fakes.FAST)
    open_sample(qtbot, win, sample, ["fake_onset", "fake_cp"])
    out = tmp_path / "current.csv"
    assert win.export_csv(str(out), all_series=False)
    rows = list(csv.DictReader(out.open()))
    assert tuple(rows[0].keys()) == CSV_COLUMNS
    by = {r["method"]: r for r in rows}
    assert by["fake_cp"]["change_points"] == ";".join(str(x) for x in range(100, 3000, 100))
    assert by["fake_cp"]["steady_index"] == ""
    everything = tmp_path / "all.csv"
    with qtbot.waitSignal(win.runner.batch_finished, timeout=20000):
        assert not win.export_csv(str(everything), all_series=True)  # computes first
    rows = list(csv.DictReader(everything.open()))
    assert len(rows) == 10 * 2 and {r["series_id"] for r in rows} == {s.id for s in win.series}
    for suffix in ("png", "svg"):
        path = tmp_path / f"plot.{suffix}"
        win.export_plot(str(path))
        assert path.stat().st_size > 1000


def test_screenshot_mode(qtbot, sample, tmp_path):
    from segview.gui.app import run
    from segview.gui.settings import Settings

    with fakes.registered(*fakes.FAST):
        Settings().set_enabled_methods({"fake_onset", "fake_cp"})
        out = tmp_path / "shot.png"
        assert run([str(sample)], str(out)) == 0
    assert out.stat().st_size > 10_000
