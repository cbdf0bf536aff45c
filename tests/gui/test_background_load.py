"""Large inputs load on a worker thread (issue 17, item 10: 5,000 series froze the explorer for
10 s and a 10-million-point series for 6.5 s): progress and Cancel (Esc) in the status bar, the
dataset installed on the GUI thread, the previous data kept on cancel or failure."""
from __future__ import annotations

import json
import threading

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from segview.core.model import Series  # noqa: E402
from segview.gui import loading  # noqa: E402
from segview.gui.plots.style import envelope, for_display  # noqa: E402


def _folder(tmp_path, n=12, points=50):
    folder = tmp_path / "many"
    folder.mkdir()
    rng = np.random.default_rng(5)
    for k in range(n):
        (folder / f"s{k:03d}.json").write_text(json.dumps([(1 + 0.1 * rng.random(points)).tolist()]))
    return folder


def test_is_small_counts_files_and_bytes(tmp_path):
    folder = _folder(tmp_path, n=12)
    assert loading.is_small([str(folder)])
    assert not loading.is_small([str(folder)], max_files=11)
    assert not loading.is_small([str(folder / "s000.json")], max_bytes=10)
    assert loading.is_small([str(tmp_path / "missing.csv")])  # load() names the problem at once


def test_a_large_folder_loads_in_the_background_with_progress(qtbot, make_window,
                                                                      tmp_path, monkeypatch):
    folder = _folder(tmp_path, n=12)
    monkeypatch.setattr(loading, "SMALL_FILES", 5)
    threads = []
    real_load = loading.load

    def spy(paths, **kw):
        threads.append(threading.current_thread())
        return real_load(paths, **kw)

    monkeypatch.setattr(loading, "load", spy)
    w = make_window()
    with qtbot.waitSignal(w.loading.done, timeout=20000):
        assert w.open_paths([str(folder)])  # accepted; returns before the files are read
        assert w.loading.busy()
        assert w.loading.bar.isVisible() and w.loading.button.isVisible()
    assert threads and threads[0] is not threading.main_thread()  # read on the worker
    assert not w.loading.busy() and not w.loading.bar.isVisible()
    assert len(w.series) == 12 and w.current is not None and w.current.id == "s000"
    assert w.dataset_panel.model.rowCount() == 12
    assert w.messages.item(w.messages.count() - 1).text().startswith("Loaded 12 series")


def test_esc_cancels_a_background_load_and_keeps_the_data(qtbot, make_window, tmp_path,
                                                                  monkeypatch, sample):
    gate = threading.Event()
    entered = threading.Event()

    def slow_load(paths, ctx, **kw):
        entered.set()
        gate.wait(20)
        ctx.check()  # raises Cancelled: Esc was pressed meanwhile
        raise AssertionError("the load should have been cancelled")

    w = make_window()
    assert w.open_paths([str(sample)], background=False)
    before = [s.id for s in w.series]
    monkeypatch.setattr(loading, "load", slow_load)
    try:
        assert w.open_paths([str(tmp_path)], background=True)
        assert entered.wait(20)
        w.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is w)  # shortcuts need it
        with qtbot.waitSignal(w.loading.cancelled, timeout=5000):
            qtbot.keyClick(w, Qt.Key.Key_Escape)
    finally:
        gate.set()
    assert w.loading.pool.waitForDone(10000)
    qtbot.wait(0)  # deliver the worker's (ignored) cancelled signal
    assert not w.loading.busy() and not w.loading.button.isVisible()
    assert [s.id for s in w.series] == before
    assert any("Loading cancelled" in w.messages.item(i).text() for i in range(w.messages.count()))


def test_a_background_load_that_fails_is_reported(qtbot, make_window, tmp_path):
    w = make_window()
    with qtbot.waitSignal(w.loading.done, timeout=10000):
        w.open_paths([str(tmp_path / "nope.csv")], background=True)
    assert "Cannot open" in w.messages.item(w.messages.count() - 1).text()
    assert "no such file" in w.messages.item(w.messages.count() - 1).text()


def test_a_newer_open_wins_over_a_running_background_load(qtbot, make_window, tmp_path, sample,
                                                          monkeypatch):
    gate = threading.Event()

    def slow_load(paths, ctx, **kw):
        gate.wait(20)
        ctx.check()
        raise AssertionError("cancelled load went on")

    w = make_window()
    monkeypatch.setattr(loading, "load", slow_load)
    try:
        w.open_paths([str(tmp_path)], background=True)
        monkeypatch.undo()
        assert w.open_paths([str(sample)], background=False)  # the user opened something else
    finally:
        gate.set()
    assert w.loading.pool.waitForDone(10000)
    qtbot.wait(0)
    assert not w.loading.busy() and len(w.series) > 0


def test_overview_envelope_keeps_every_peak():
    rng = np.random.default_rng(1)
    y = rng.standard_normal(1_000_003)
    y[123_457] = 50.0
    y[876_543] = -50.0
    x, e = envelope(None, y, max_points=4000)
    assert len(e) <= 4000 + 2 * 256 and np.all(np.diff(x) > 0)
    assert e.max() == 50.0 and e.min() == -50.0 and x[np.argmax(e)] == 123_457
    assert x[-1] == len(y) - 1  # the tail is kept
    small_x, small = envelope(np.arange(10.0) * 2, y[:10])
    assert np.array_equal(small, y[:10]) and np.array_equal(small_x, np.arange(10.0) * 2)


def test_for_display_fast_path_matches_the_filtered_one():
    assert for_display(np.array([1.0, -3.0]))[1] == 0
    shown, k = for_display(np.array([1e200, -3e201]))
    assert k == 201 and np.allclose(shown, [0.1, -3.0])
    shown, k = for_display(np.array([np.nan, 5e-324, np.inf]))  # non-finite: the filtered way
    assert k == -324


def test_a_two_million_point_series_gives_the_overview_a_few_thousand_points(qtbot,
                                                                                make_window):
    w = make_window()
    n = 2_000_000
    w.set_dataset([Series(np.sin(np.arange(n) / 1e5), id="long")])
    xd, yd = w.overview.curve.xData, w.overview.curve.yData  # what it was given
    assert len(yd) < 20_000 and xd[-1] == n - 1
    assert w.series_plot.x_end() == float(n)


def test_a_costly_parameter_is_asked_about_before_running(qtbot, make_window, sample,
                                                                  monkeypatch):
    """The explorer runs nothing whose pre-run estimate (segview.core.limits) says minutes or
    gigabytes without asking; Skip slow ones leaves the method not run, Run all runs it."""
    import dataclasses

    from segview.gui import cost_dialog

    from . import fakes

    costly = dataclasses.replace(
        fakes.FAKE_CP, name="fake_costly", label="Fake costly",
        cost_warning=lambda n, p: f"every={p['every']} on {n} samples is slow" if p["every"] < 10
        else None)
    asked: list[str] = []
    answer = {"choice": cost_dialog.SKIP_SLOW}

    def ask(parent, rows, n):
        asked.extend(note for _label, note in rows)
        return answer["choice"]

    monkeypatch.setattr(cost_dialog, "ask", ask)
    w = make_window(costly)
    seen: list[str] = []
    w.overlay_updated.connect(seen.append)
    w.open_paths([str(sample)], background=False)
    qtbot.waitUntil(lambda: "fake_costly" in seen, timeout=10000)
    assert asked == []  # every=100: no warning, no question
    fakes.LOG.reset()
    editor = w.param_panel.editor("fake_costly", "every")
    editor.spin.setValue(5)
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=5000)
    assert "every=5 on" in asked[0]
    assert w.status["fake_costly"].endswith("not run (cost)")
    assert any("Not run: fake_costly: every=5" in w.messages.item(i).text()
               for i in range(w.messages.count()))
    w.show_series(w.series[1].id)  # the answer holds: not asked again for the same parameters
    assert len(asked) == 1 and w.status["fake_costly"].endswith("not run (cost)")
    answer["choice"] = cost_dialog.RUN_ALL
    seen.clear()
    editor.spin.setValue(6)
    qtbot.waitUntil(lambda: "fake_costly" in seen, timeout=10000)
    assert len(asked) == 2 and w.lanes["fake_costly"].positions()[:2] == [6.0, 12.0]


def test_issue26_a_big_folder_shows_per_file_progress_while_it_loads(qtbot, make_window,
                                                                    tmp_path):
    """Issue 26 ("a folder of 20,000 small files ... with progress in the GUI"): while a folder
    loads on the worker, the status bar's bar leaves its busy state and shows the fraction of
    files read, with the file being read named."""
    folder = _folder(tmp_path, n=12)
    w = make_window()
    seen = []

    def record(gen, fraction, message):  # runs after the loader's own slot (connected first)
        seen.append((w.loading.bar.maximum(), w.loading.bar.value(), w.loading.label.text(),
                     fraction, message))

    w.loading.signals.progress.connect(record)
    with qtbot.waitSignal(w.loading.done, timeout=20000):
        assert w.open_paths([str(folder)], background=True)
    assert seen, "no progress reached the GUI"
    maximum, value, label, fraction, message = seen[0]
    assert message == "file 1 of 12: s000.json" and fraction == 0.0
    assert maximum == 1000 and value == 0  # determinate, at the first file
    assert label == "Loading: file 1 of 12: s000.json"
    assert all(0.0 <= f <= 1.0 for *_, f, _m in seen)
    assert len(w.series) == 12
