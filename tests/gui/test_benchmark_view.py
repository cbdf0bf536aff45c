"""The explorer shows benchmarks (issue 26.4): the series list is a tree (benchmark, then its
process executions) with search; a benchmark's row opens the benchmark view (its executions as
small multiples with method lanes, or overlaid, the harness's warm-up shaded); keys move between
executions and benchmarks; the table rolls the methods' results up per benchmark."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from segview.core.benchmark import execution
from segview.gui.help_dialogs import menu_shortcuts

from . import fakes

N, WARMUP = 200, 20
ALT, CTRL_SHIFT = Qt.KeyboardModifier.AltModifier, (Qt.KeyboardModifier.ControlModifier
                                                     | Qt.KeyboardModifier.ShiftModifier)


def _values(slow_until: int, spike_at_end: bool = False) -> np.ndarray:
    """10.0 while warming up (until ``slow_until``), then 1.0 +- 0.1; optionally a last spike."""
    rng = np.random.default_rng(slow_until)
    v = 1.0 + 0.1 * rng.standard_normal(N)
    v[:slow_until] = 10.0
    if spike_at_end:
        v[-1] = 10.0
    return v


# exec 0 warms up with the harness's 20 warm-up iterations, exec 1 takes 30, exec 2 ends in a spike
SLOW_UNTIL = (20, 30, 20)
SPIKE = (False, False, True)


def _executions() -> list:
    return [execution(_values(SLOW_UNTIL[k], SPIKE[k]), benchmark="org.Foo.bar", index=k,
                      harness="jmh", unit="ms/op", warmup=WARMUP) for k in range(3)]


def _jmh_result_file(tmp_path):
    """A JMH ``-rf json`` file: ``org.Foo.bar`` with 3 forks, ``org.Foo.single`` with 1."""
    execs = _executions()
    result = [{"benchmark": "org.Foo.bar", "mode": "avgt", "forks": 3,
               "primaryMetric": {"scoreUnit": "ms/op",
                                 "rawData": [s.values.tolist() for s in execs]}},
              {"benchmark": "org.Foo.single", "mode": "avgt", "forks": 1,
               "primaryMetric": {"scoreUnit": "ms/op", "rawData": [[1.0, 2.0, 3.0, 2.0] * 10]}}]
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result))
    return path


def _bench_row(panel):
    top = panel.proxy.index(0, 0)
    assert top.data() == "org.Foo.bar"
    return top


def test_tree_has_one_benchmark_with_three_executions_and_search_filters(qtbot, make_window,
                                                                          tmp_path):
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.series_shown, timeout=10000):
        assert win.open_paths([str(_jmh_result_file(tmp_path))])
    panel = win.dataset_panel
    assert panel.proxy.rowCount() == 2  # the 3-fork benchmark and the 1-fork one
    top = _bench_row(panel)
    assert panel.proxy.rowCount(top) == 3
    assert [panel.proxy.index(k, 0, top).data() for k in range(3)] == ["exec 0", "exec 1",
                                                                     "exec 2"]
    single = panel.proxy.index(1, 0)
    assert single.data() == "org.Foo.single/fork0" and panel.proxy.rowCount(single) == 0
    assert panel.proxy.index(1, 1).data() == "40"
    assert panel.proxy.index(0, 1).data() == "3 exec"
    panel.search.setText("BAR")  # by benchmark name, case-insensitive: its executions stay
    assert panel.proxy.rowCount() == 1 and panel.proxy.rowCount(panel.proxy.index(0, 0)) == 3
    panel.search.setText("bar/fork2")  # by series name: the benchmark with that one execution
    assert panel.proxy.rowCount() == 1
    assert panel.proxy.rowCount(panel.proxy.index(0, 0)) == 1
    assert panel.proxy.index(0, 0, panel.proxy.index(0, 0)).data() == "exec 2"
    panel.search.setText("single")
    assert panel.proxy.rowCount() == 1
    assert panel.proxy.index(0, 0).data() == "org.Foo.single/fork0"
    panel.search.setText("nothing like it")
    assert panel.proxy.rowCount() == 0
    panel.search.clear()
    assert panel.proxy.rowCount() == 2


def test_selecting_an_execution_shows_it_as_a_series(qtbot, make_window, tmp_path):
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.series_shown, timeout=10000):
        assert win.open_paths([str(_jmh_result_file(tmp_path))])
    panel = win.dataset_panel
    # the first series is selected on load: the benchmark's first execution
    assert win.current.id == "org.Foo.bar/fork0" and win.central.currentWidget() is win.plot_widget
    child = panel.proxy.index(1, 0, _bench_row(panel))
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        panel.table.setCurrentIndex(child)
    assert win.current.id == "org.Foo.bar/fork1"
    assert win.lanes["fake_cp"].positions() == [100.0]  # every=100 on 200 samples
    assert win.series_plot.warmup.bounds() is None  # -rf json has no warm-up iterations


def _window_with_benchmark(qtbot, make_window, *specs):
    win = make_window(*specs)
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)  # shortcuts need an active window
    single = execution(np.arange(50.0), benchmark="other", index=0, harness="jmh")
    with qtbot.waitSignal(win.series_shown, timeout=10000):
        win.set_dataset(_executions() + [single])
    return win


def test_benchmark_view_draws_every_execution_with_warmup_and_lanes(qtbot, make_window):
    win = _window_with_benchmark(qtbot, make_window, *fakes.FAST)
    panel = win.dataset_panel
    drawn: set = set()
    win.benchmark_result_drawn.connect(lambda sid, m: drawn.add((sid, m)))
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        panel.table.setCurrentIndex(_bench_row(panel))
    assert win.central.currentWidget() is win.bench_view and win.current is None
    view = win.bench_view
    plots = view.plots()
    assert len(plots) == 3
    # one x range for all: the plots are linked
    assert len({tuple(np.round(p.vb.viewRange()[0], 6)) for p in plots}) == 1
    for row in view.rows[:3]:
        assert row.shade.bounds() == (0.0, float(WARMUP))  # the harness's 20 iterations
    ids = [f"org.Foo.bar/exec{k}" for k in range(3)]
    qtbot.waitUntil(lambda: {(i, m) for i in ids for m in ("fake_onset", "fake_cp")} <= drawn,
                    timeout=20000)
    for k, row in enumerate(view.rows[:3]):
        assert row.lanes["fake_cp"].positions() == [100.0]
        onset = None if SPIKE[k] else SLOW_UNTIL[k]
        want = None if onset is None else (float(onset), float(N))
        assert row.lanes["fake_onset"].region_bounds() == want
    # the table's roll-up on the benchmark's row: 2 of 3 steady, median of onsets 20 and 30
    col = 4 + [s.name for s in win.specs].index("fake_onset")
    qtbot.waitUntil(lambda: panel.model.rollup("org.Foo.bar", "fake_onset") is not None)
    assert panel.proxy.index(0, col).data() == "2/3 steady, med 25"
    cp_col = 4 + [s.name for s in win.specs].index("fake_cp")
    assert panel.proxy.index(0, cp_col).data() == "med 1 cp"
    # a panned x range is shared by every execution
    plots[0].setXRange(50, 80, padding=0)
    assert all(np.allclose(p.vb.viewRange()[0], (50, 80)) for p in plots)


def test_overlay_toggle_draws_the_executions_in_one_plot(qtbot, make_window):
    win = _window_with_benchmark(qtbot, make_window, fakes.FAKE_CP)
    panel = win.dataset_panel
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        panel.table.setCurrentIndex(_bench_row(panel))
    view = win.bench_view
    with qtbot.waitSignal(view.mode_changed, timeout=5000):
        qtbot.keyClick(win, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert view.overlaid and win.overlay_action.isChecked()
    assert len(view.plots()) == 1 and view.plots()[0] is view.overlay_plot
    shown = [c for c in view.overlay_curves if c.isVisible()]
    assert len(shown) == 3 and len({c.opts["pen"].color().name() for c in shown}) == 3
    assert [s.bounds() for s in view.overlay_shades if s.bounds()] == [(0.0, float(WARMUP))]
    assert view.overlay_lanes.order == [f"org.Foo.bar/exec{k}" for k in range(3)]
    with qtbot.waitSignal(view.mode_changed, timeout=5000):
        win.overlay_action.trigger()
    assert not view.overlaid and len(view.plots()) == 3


def test_single_series_plot_shades_the_harness_warmup(qtbot, make_window):
    win = _window_with_benchmark(qtbot, make_window, fakes.FAKE_CP)
    assert win.current.id == "org.Foo.bar/exec0"
    assert win.series_plot.warmup.bounds() == (0.0, float(WARMUP))
    assert win.dataset_panel.select("other/exec0")
    assert win.series_plot.warmup.bounds() is None  # no warm-up recorded: nothing shaded


def test_keys_move_between_executions_and_benchmarks(qtbot, make_window):
    win = _window_with_benchmark(qtbot, make_window, fakes.FAKE_CP)
    table = win.dataset_panel.table
    table.setFocus()
    assert win.current.id == "org.Foo.bar/exec0"
    with qtbot.waitSignal(win.series_shown, timeout=5000):
        qtbot.keyClick(table, Qt.Key.Key_Down, ALT)  # next execution
    assert win.current.id == "org.Foo.bar/exec1"
    with qtbot.waitSignal(win.benchmark_shown, timeout=5000):
        qtbot.keyClick(table, Qt.Key.Key_PageUp)  # from an execution: its own benchmark
    assert win.current_benchmark.name == "org.Foo.bar"
    with qtbot.waitSignal(win.series_shown, timeout=5000):
        qtbot.keyClick(table, Qt.Key.Key_Down, CTRL_SHIFT)  # next benchmark: the single one
    assert win.current.id == "other/exec0"
    with qtbot.waitSignal(win.series_shown, timeout=5000):
        qtbot.keyClick(table, Qt.Key.Key_Up, ALT)  # previous execution: the last of the benchmark
    assert win.current.id == "org.Foo.bar/exec2"
    with qtbot.waitSignal(win.series_shown, timeout=5000):
        qtbot.keyClick(table, Qt.Key.Key_PageDown)
    assert win.current.id == "other/exec0"
    with qtbot.waitSignal(win.benchmark_shown, timeout=5000):
        qtbot.keyClick(table, Qt.Key.Key_PageUp)
    assert win.current_benchmark.name == "org.Foo.bar"
    with qtbot.waitSignal(win.series_shown, timeout=5000):
        qtbot.keyClick(table, Qt.Key.Key_Down, ALT)  # from the benchmark: its first execution
    assert win.current.id == "org.Foo.bar/exec0"


def test_f1_lists_the_new_keys_and_no_key_is_bound_twice(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    rows = menu_shortcuts(win.menuBar())
    by_text = {text: keys for _menu, text, keys in rows}
    assert "PgDown" in by_text["Next benchmark"] or "Page Down" in by_text["Next benchmark"]
    assert "Ctrl+Shift+Down" in by_text["Next benchmark"]
    assert "Alt+Down" in by_text["Next series (execution)"]
    assert "Alt+Up" in by_text["Previous series (execution)"]
    assert "Ctrl+L" in by_text["Overlay a benchmark's executions"]
    keys = [k.strip() for _m, _t, ks in rows for k in ks.split(", ")]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)


@pytest.mark.parametrize("n_exec", [30])
def test_benchmark_view_of_thirty_executions_reuses_its_rows(qtbot, make_window, n_exec):
    win = make_window(fakes.FAKE_CP)
    a = [execution(np.arange(3000.0), benchmark="a", index=k, harness="h", warmup=5)
         for k in range(n_exec)]
    b = [execution(np.arange(100.0), benchmark="b", index=k, harness="h") for k in range(2)]
    with qtbot.waitSignal(win.series_shown, timeout=10000):
        win.set_dataset(a + b)
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        win.dataset_panel.select_benchmark("a")
    assert len(win.bench_view.plots()) == n_exec
    rows = list(win.bench_view.rows)
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        win.dataset_panel.select_benchmark("b")
    assert len(win.bench_view.plots()) == 2 and win.bench_view.rows == rows  # pooled
    assert all(r.shade.bounds() is None for r in win.bench_view.rows[:2])


def test_opening_the_benchmark_keeps_the_running_job_of_the_execution_shown(qtbot, make_window):
    """The execution shown before the benchmark view keeps its running detector job: asking
    again would cancel it and queue the same work behind every other execution."""
    win = make_window(fakes.FAKE_GATED)
    with qtbot.waitSignal(win.series_shown, timeout=10000):
        win.set_dataset(_executions())
    lane = ("org.Foo.bar/exec0", "fake_gated")
    qtbot.waitUntil(lambda: len(fakes.LOG.calls) >= 1, timeout=5000)  # blocked on the gate
    job = win.runner._running[lane]
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        win.dataset_panel.select_benchmark("org.Foo.bar")
    assert win.runner._running.get(lane) is job and not job.ctx.cancelled
    ids = [f"org.Foo.bar/exec{k}" for k in range(3)]
    drawn: set = set()
    win.benchmark_result_drawn.connect(lambda sid, m: drawn.add(sid))
    fakes.GATE.set()
    qtbot.waitUntil(lambda: set(ids) <= drawn, timeout=20000)
    assert [r.lanes["fake_gated"].positions() for r in win.bench_view.rows[:3]] == [[50.0]] * 3


def test_export_in_the_benchmark_view_saves_every_execution(qtbot, make_window, tmp_path):
    from PySide6.QtGui import QImage

    win = _window_with_benchmark(qtbot, make_window, fakes.FAKE_CP)
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        win.dataset_panel.select_benchmark("org.Foo.bar")
    path = tmp_path / "bench.png"
    win.export_plot(str(path), width=900)
    img = QImage(str(path))
    view = win.bench_view.plot_widget
    assert img.width() == 900
    # the benchmark view's proportions (three executions stacked), not the single-series plot's
    ratio = view.ci.height() / view.ci.width()
    assert abs(img.height() / img.width() - ratio) < 0.02
    assert "org.Foo.bar" in win.messages.item(win.messages.count() - 1).text()


def test_run_on_all_fills_the_benchmark_rollups(qtbot, make_window):
    win = _window_with_benchmark(qtbot, make_window, fakes.FAKE_ONSET)
    with qtbot.waitSignal(win.runner.batch_finished, timeout=20000):
        assert win.run_on_all()
    model = win.dataset_panel.model
    assert model.rollup("org.Foo.bar", "fake_onset") == "2/3 steady, med 25"
    assert model.rollup("other", "fake_onset") is None  # one execution: its own row, no roll-up
