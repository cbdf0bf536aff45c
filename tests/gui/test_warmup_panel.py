"""The explorer's Warm-up panel (issue 27 point 4): the selected benchmark's class, counts per
class, steady iteration, time to steady state and steady performance with its interval, for a
chosen rule, computed off the GUI thread; the benchmark view's executions coloured by class.

The benchmarks are written in warmup_stats' CSV format (seconds per iteration). Their classes follow
from Barrett et al.'s rules, not from the code: a *flat* execution is 1 s plus 0.1 ms noise (one
segment); a *warm-up* execution spends its first 50 iterations at 2 s, then 1 s (two segments one
second apart, far outside the last one's variance plus delta = 1 ms, and the change comes before
the last 25 % of the 300 iterations), so its steady iteration is 50."""
from __future__ import annotations

import re
import threading

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from segview.core.warmup import analyse_benchmark
from segview.gui.jobs import WarmupJob
from segview.gui.warmup_panel import CLASS_COLORS

from . import fakes

N, WARM = 300, 50
MIXED = ("flat", "flat", "warmup", "warmup")  # good inconsistent
WARMED = ("warmup", "warmup", "warmup")  # consistent: warm-up


def _execution(kind: str, seed: int) -> np.ndarray:
    v = 1.0 + 1e-4 * np.random.default_rng(seed).standard_normal(N)
    if kind == "warmup":
        v[:WARM] += 1.0
    return v


def _csv(tmp_path):
    lines = ["process_exec_idx,bench_name," + ",".join(str(i) for i in range(N))]
    for name, kinds in (("mixed", MIXED), ("warmed", WARMED)):
        for k, kind in enumerate(kinds):
            vals = _execution(kind, 100 * len(name) + k)
            lines.append(f"{k},{name}," + ",".join(repr(float(x)) for x in vals))
    path = tmp_path / "bench.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _text(label) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", label.text())).replace("&#9632;", "■")


def _open(qtbot, win, path, name="mixed"):
    with qtbot.waitSignal(win.warmup_panel.result_shown, timeout=120000,
                          check_params_cb=lambda n: n == name):
        assert win.open_paths([str(path)])
    return win.dataset_panel.model.benchmark_named(name)


def test_panel_shows_the_cores_classes_counts_and_figures(qtbot, make_window, tmp_path):
    win = make_window(fakes.FAKE_CP)
    b = _open(qtbot, win, _csv(tmp_path))
    panel = win.warmup_panel
    assert panel.method() == "barrett"
    shown = panel.result
    core = analyse_benchmark(b, "barrett")  # the same defaults and seed
    assert shown.to_dict() == core.to_dict()
    # what the rules say
    assert [e.classification for e in shown.executions] == list(MIXED)
    assert _text(panel.fields["class"]) == "good inconsistent"
    counts = _text(panel.fields["counts"])
    for label, k in (("flat", 2), ("warm-up", 2), ("slowdown", 0), ("no steady state", 0)):
        assert f"■ {label} {k}" in counts
    # steady iterations 0, 0, 50, 50: median 25, quartiles 0 and 50
    assert _text(panel.fields["steady_iteration"]) == "25 (IQR 0 – 50)"
    # time to steady state: the warm-ups spend 50 iterations of ~2 s
    tts = core.time_to_steady
    assert _text(panel.fields["time_to_steady"]) == (
        f"{tts.median:.4g} (IQR {tts.percentile(25):.4g} – {tts.percentile(75):.4g}) s")
    assert 95 < tts.percentile(75) < 105
    perf = core.steady_means
    assert _text(panel.fields["steady_performance"]) == (
        f"{perf.median:.4g} (IQR {perf.percentile(25):.4g} – {perf.percentile(75):.4g}) s")
    ci = core.steady_ci
    assert _text(panel.fields["ci"]) == (f"{ci.estimate:.4g} [{ci.low:.4g}, {ci.high:.4g}] s "
                                         "(99 %)")
    assert ci.low <= ci.estimate <= ci.high
    rows = [(panel.table.item(r, 0).text(), panel.table.item(r, 1).text())
            for r in range(panel.table.rowCount())]
    assert rows == [("0", "flat"), ("1", "flat"), ("2", "warm-up"), ("3", "warm-up")]
    assert panel.table.item(2, 2).text() == str(WARM)


def test_open_button_shows_benchmark_view_with_executions_coloured_by_class(qtbot, make_window,
                                                                             tmp_path):
    win = make_window(fakes.FAKE_CP)
    b = _open(qtbot, win, _csv(tmp_path))
    panel = win.warmup_panel
    assert panel.open_button.isEnabled()
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        qtbot.mouseClick(panel.open_button, Qt.MouseButton.LeftButton)
    assert win.current_benchmark is not None and win.current_benchmark.name == "mixed"
    view = win.bench_view
    for s, cls in zip(b.executions, MIXED):
        assert view.execution_class(s.id) == cls
        bg = view._row_of[s.id].plot.vb.state["background"]
        assert bg.name() == CLASS_COLORS[cls].lower()
    title = re.sub(r"<[^>]+>", "", view.title.text())
    assert "classes (Barrett et al. (warmup_stats))" in title
    assert "flat" in title and "warm-up" in title and "slowdown" not in title
    # double click on an execution's row in the panel: that execution alone
    with qtbot.waitSignal(win.series_shown, timeout=10000):
        panel._on_cell_double_clicked(2, 0)
    assert win.current.id == b.executions[2].id


def test_stale_analysis_is_dropped_when_the_selection_changes(qtbot, make_window, tmp_path):
    win = make_window(fakes.FAKE_CP)
    _open(qtbot, win, _csv(tmp_path))
    panel = win.warmup_panel
    seen: list[tuple[str, str]] = []
    panel.result_shown.connect(lambda name: seen.append((name, panel.result.method)))
    # a new rule asks for mixed with KB-KSSD; selecting another benchmark at once supersedes it
    with qtbot.waitSignal(panel.result_shown, timeout=120000,
                          check_params_cb=lambda n: n == "warmed"):
        panel.set_method("kbkssd")
        assert win.warmup_panel.status.text().startswith("Analysing 4 executions")
        win.dataset_panel.select_benchmark("warmed")
    # every warm-up job ended, the superseded one included, and its signals delivered
    qtbot.waitUntil(lambda: not win.runner.is_busy() and all(
        j.done.is_set() for j in win.runner._retired if isinstance(j, WarmupJob)),
        timeout=120000)
    QApplication.processEvents()
    assert seen == [("warmed", "kbkssd")]
    assert not [k for k in win.model.warmup_results if k[:2] == ("mixed", "kbkssd")]
    warmed = win.dataset_panel.model.benchmark_named("warmed")
    assert panel.result.to_dict() == analyse_benchmark(warmed, "kbkssd").to_dict()
    # back to barrett: the rules make this benchmark a consistent warm-up
    with qtbot.waitSignal(panel.result_shown, timeout=120000):
        panel.set_method("barrett")
    assert [e.classification for e in panel.result.executions] == list(WARMED)
    assert _text(panel.fields["class"]) == "■ warm-up (consistent)"
    assert _text(panel.fields["steady_iteration"]) == f"{WARM} (IQR {WARM} – {WARM})"


def test_analysis_never_runs_on_the_gui_thread(qtbot, make_window, tmp_path, monkeypatch):
    """In-process mode (no worker processes): the analysis runs in a pool thread."""
    from segview.gui import jobs

    monkeypatch.setenv("SEGVIEW_IN_PROCESS", "1")
    threads: list[threading.Thread] = []
    real = jobs.analyse_benchmark_job

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(jobs, "analyse_benchmark_job", spy)
    win = make_window(fakes.FAKE_CP)
    assert win.runner.processes is None
    _open(qtbot, win, _csv(tmp_path))
    assert threads and all(t is not threading.main_thread() for t in threads)


@pytest.mark.parametrize("fixture", ["hotspot_nbody.csv", "pypy_nbody.csv"])
def test_panel_agrees_with_the_json_on_the_real_fixtures(qtbot, make_window, fixture):
    """The real JVM and PyPy process executions (warmup_stats' CSV): the panel shows what the
    core's JSON document says, execution by execution."""
    from pathlib import Path

    from segview.core.warmup import to_json

    path = Path(__file__).resolve().parents[1] / "data" / "harness" / "warmup_stats" / fixture
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.warmup_panel.result_shown, timeout=120000):
        assert win.open_paths([str(path)])
    panel = win.warmup_panel
    b = win.dataset_panel.model.benchmark_named(panel.benchmark_name)
    doc = to_json([analyse_benchmark(b, "barrett")])["benchmarks"][0]
    assert panel.result.to_dict() == doc
    table = [panel.table.item(r, 1).text() for r in range(panel.table.rowCount())]
    assert table == [{"warmup": "warm-up"}.get(e["classification"], e["classification"])
                     for e in doc["executions"]]
    counts = _text(panel.fields["counts"])
    for cls, label in (("flat", "flat"), ("warmup", "warm-up"), ("slowdown", "slowdown"),
                       ("no steady state", "no steady state")):
        assert f"■ {label} {doc['counts'][cls]}" in counts
    verdict = _text(panel.fields["class"])
    if doc["consistency"] == "consistent":
        label = {"warmup": "warm-up"}.get(doc["classification"], doc["classification"])
        assert verdict == f"■ {label} (consistent)"
    else:
        assert verdict == doc["consistency"]


def test_closed_panel_runs_no_analysis_until_opened_again(qtbot, make_window, tmp_path):
    win = make_window(fakes.FAKE_CP)
    _open(qtbot, win, _csv(tmp_path))
    dock = win.docks["Warm-up"]
    dock.close()
    calls: list[tuple] = []
    real = win.runner.request_warmup
    win.runner.request_warmup = lambda *a, **k: (calls.append(a[0]), real(*a, **k))[1]
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        win.dataset_panel.select_benchmark("warmed")
    assert calls == [] and win.warmup_panel.result is None
    assert win.bench_view.execution_class(win.current_benchmark.executions[0].id) is None
    with qtbot.waitSignal(win.warmup_panel.result_shown, timeout=120000,
                          check_params_cb=lambda n: n == "warmed"):
        dock.show()
    assert [t.key for t in calls] == [("warmed", "barrett", 0.001, "absolute")]
    first = win.current_benchmark.executions[0].id
    assert win.bench_view.execution_class(first) == "warmup"


def test_delta_is_a_setting_of_the_panel_with_units_and_is_remembered(qtbot, make_window,
                                                                       tmp_path):
    # By the rules, a warm-up execution's first segment (mean 2 s) is equivalent to its last
    # (1 s, variance ~1e-8 s^2) once delta exceeds 1 s: with delta = 2000 ms every execution of
    # "mixed" is flat, so the benchmark becomes a consistent flat one.
    from segview.gui.settings import Settings
    from segview.gui.warmup_panel import delta_params

    path = _csv(tmp_path)
    win = make_window(fakes.FAKE_CP)
    b = _open(qtbot, win, path)
    panel = win.warmup_panel
    assert panel.delta_setting() == (1.0, "ms")              # warmup_stats' 0.001 s
    assert {e.execution_class.delta for e in panel.result.analysed} == {0.001}
    assert [e.classification for e in panel.result.executions] == list(MIXED)
    with qtbot.waitSignal(panel.result_shown, timeout=120000):
        panel.delta.setValue(2000.0)
    assert [e.classification for e in panel.result.executions] == ["flat"] * len(MIXED)
    assert _text(panel.fields["class"]) == "■ flat (consistent)"
    assert "delta 2000 ms" in panel.status.text()
    assert panel.result.to_dict() == analyse_benchmark(b, "barrett", delta=2.0).to_dict()
    assert Settings().warmup_delta() == (2000.0, "ms")
    # a percentage of the fastest segment mean (1 s): 150 % is 1.5 s, flat again; 10 % is not
    with qtbot.waitSignal(panel.result_shown, timeout=120000):
        panel.delta.setValue(10.0)                             # 10 ms: mixed again
    with qtbot.waitSignal(panel.result_shown, timeout=120000):
        panel.delta_unit.setCurrentIndex(panel.delta_unit.findData("%"))
    assert [e.classification for e in panel.result.executions] == list(MIXED)
    assert panel.result.to_dict() == analyse_benchmark(b, "barrett", delta=10.0,
                                                       delta_mode="percent").to_dict()
    assert delta_params(150.0, "%") == {"delta": 150.0, "delta_mode": "percent"}
    assert delta_params(250.0, "µs") == {"delta": 250.0 * 1e-6, "delta_mode": "absolute"}
    assert Settings().warmup_delta() == (10.0, "%")
    win.close()
    # a new window starts with the delta remembered, and analyses with it
    win2 = make_window(fakes.FAKE_CP)
    assert win2.warmup_panel.delta_setting() == (10.0, "%")
    _open(qtbot, win2, path)
    assert win2.warmup_panel.result.to_dict() == analyse_benchmark(
        b, "barrett", delta=10.0, delta_mode="percent").to_dict()


def test_a_bad_saved_delta_gives_warmup_stats_default(qtbot, make_window):
    from segview.gui.settings import Settings

    Settings().q.setValue("warmup/delta", '[-3, "furlongs"]')
    win = make_window(fakes.FAKE_CP)
    assert win.warmup_panel.delta_setting() == (1.0, "ms")
    Settings().q.setValue("warmup/delta", "not json")
    assert Settings().warmup_delta() is None


def test_overlay_mode_colours_each_execution_lane_by_its_class(qtbot, make_window, tmp_path):
    """Overlay mode: the lane of each execution under the overlay is tinted with its class's
    colour (small multiples tint the plot instead), on screen too."""
    from segview.gui.plots.benchmark_view import OVERLAY_CLASS_ALPHA

    win = make_window(fakes.FAKE_CP)
    b = _open(qtbot, win, _csv(tmp_path))
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        qtbot.mouseClick(win.warmup_panel.open_button, Qt.MouseButton.LeftButton)
    view = win.bench_view
    view.set_overlaid(True)
    lanes = view.overlay_lanes
    for s, cls in zip(b.executions, MIXED):
        assert view.overlay_class_color(s.id) == CLASS_COLORS[cls].lower()
        assert lanes[s.id].tint_item.isVisible()
    assert "(lane background)" in view.title.text()
    # on screen: the middle of each lane's row is the class colour over the white background
    QApplication.processEvents()
    image = view.plot_widget.grab().toImage()
    vb = lanes.plot.vb
    x0, x1 = vb.viewRange()[0]
    for s, cls in zip(b.executions, MIXED):
        row = lanes[s.id].row
        want = QColor(CLASS_COLORS[cls])
        seen = []
        for fx in (0.2, 0.45, 0.7, 0.9):
            pt = vb.mapViewToScene(QPointF(x0 + fx * (x1 - x0), row + 0.5))
            pos = view.plot_widget.mapFromScene(pt)
            c = QColor(image.pixel(int(pos.x() * image.devicePixelRatio()),
                                   int(pos.y() * image.devicePixelRatio())))
            seen.append((c.red(), c.green(), c.blue()))
        blend = [round(255 - (255 - v) * OVERLAY_CLASS_ALPHA / 255)
                 for v in (want.red(), want.green(), want.blue())]
        assert any(max(abs(a - e) for a, e in zip(px, blend)) <= 8 for px in seen), (cls, seen,
                                                                                     blend)
    # a new analysis without classes (e.g. the panel closed) takes the tint away
    view.set_classes(None)
    assert all(view.overlay_class_color(s.id) is None for s in b.executions)
    assert not lanes[b.executions[0].id].tint_item.isVisible()


def test_a_dataset_opened_after_a_warmup_analysis_shows_none_of_its_classes(qtbot, make_window,
                                                                            tmp_path):
    """Issue 29: the warm-up results belong to the dataset they were made on. A second file
    with a benchmark of the same name (so the same execution ids, rule and delta) but other
    data: its executions are all flat by the rules (1 s plus 0.1 ms noise, one segment), while
    the first file's "mixed" has two warm-ups. Neither the first file's cached analysis nor a
    late answer of it may colour the second file's benchmark."""
    first = _csv(tmp_path)
    second_dir = tmp_path / "second"
    second_dir.mkdir()
    lines = ["process_exec_idx,bench_name," + ",".join(str(i) for i in range(N))]
    for k in range(len(MIXED)):
        vals = _execution("flat", 7000 + k)
        lines.append(f"{k},mixed," + ",".join(repr(float(x)) for x in vals))
    second = second_dir / "bench.csv"
    second.write_text("\n".join(lines) + "\n")

    win = make_window(fakes.FAKE_CP)
    asked: list = []
    real = win.runner.request_warmup
    win.runner.request_warmup = lambda *a, **k: (asked.append(a[0]), real(*a, **k))[1]
    _open(qtbot, win, first)
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        qtbot.mouseClick(win.warmup_panel.open_button, Qt.MouseButton.LeftButton)
    old = win.dataset_panel.model.benchmark_named("mixed")
    old_key, old_result = asked[-1], win.warmup_panel.result
    assert [win.bench_view.execution_class(s.id) for s in old.executions] == list(MIXED)

    # the second file: from the moment it is shown, nothing of the first file's analysis
    shown: list = []

    def on_shown(_sid):
        shown.append((win.warmup_panel.result, [win.bench_view.execution_class(s.id)
                                                for s in old.executions]))

    win.series_shown.connect(on_shown)
    with qtbot.waitSignal(win.warmup_panel.result_shown, timeout=120000):
        assert win.open_paths([str(second)])
    assert shown and shown[0] == (None, [None] * len(MIXED))
    new = win.dataset_panel.model.benchmark_named("mixed")
    assert [s.id for s in new.executions] == [s.id for s in old.executions]  # same ids
    assert [e.classification for e in win.warmup_panel.result.executions] == ["flat"] * len(MIXED)
    with qtbot.waitSignal(win.benchmark_shown, timeout=10000):
        qtbot.mouseClick(win.warmup_panel.open_button, Qt.MouseButton.LeftButton)
    assert [win.bench_view.execution_class(s.id) for s in new.executions] == ["flat"] * len(MIXED)
    # a late answer of the first file's analysis (asked for the same benchmark, rule and delta)
    win.runner.warmup_ready.emit(old_key, old_result)
    QApplication.processEvents()
    assert [e.classification for e in win.warmup_panel.result.executions] == ["flat"] * len(MIXED)
    assert [win.bench_view.execution_class(s.id) for s in new.executions] == ["flat"] * len(MIXED)
    assert win.warmup_panel.result.to_dict() == analyse_benchmark(new, "barrett").to_dict()


def test_time_to_steady_says_when_a_unitless_series_was_taken_as_seconds(qtbot, tmp_path):
    """The analysis takes a unit that is not a time as seconds (warmup_stats' rule, a warning in
    Messages); the panel says so beside the figure instead of showing a bare "s"."""
    import dataclasses

    from segview.core.io import load
    from segview.gui.warmup_panel import WarmupPanel

    bench = next(b for b in load(_csv(tmp_path)).benchmarks() if b.name == "mixed")
    timed = analyse_benchmark(bench, "barrett")
    panel = WarmupPanel()
    qtbot.addWidget(panel)
    panel.set_pending("mixed", 4)  # the panel shows only the benchmark it waits for
    assert panel.set_result(timed)
    assert "taken as s" not in _text(panel.fields["time_to_steady"])
    assert panel.set_result(dataclasses.replace(timed, unit=""))
    text = _text(panel.fields["time_to_steady"])
    assert text.endswith(") s (values taken as s)"), text
