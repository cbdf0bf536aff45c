"""The evaluation view (issue #7) over the bundled sample: tables against the core's report and
hand counts from labels.csv, run-now through the batch engine, series opened in the explorer,
malformed input, export, and the explorer's menu hook (pytest-qt, offscreen)."""
from __future__ import annotations

import ctypes
import csv
import json
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

import segview
from segview.core import registry
from segview.core.evaluation import report as rep
from segview.core.evaluation.evaluate import METHOD_KEYS, evaluate_onsets
from segview.core.evaluation.tables import read_predictions, read_truth
from segview.gui.evaluate.tables import UNSCORED, VALUE_ROLE

if sys.version_info < (3, 12) and sys.implementation.name == "cpython":
    # PySide6 6.12.0 (abi3) drops a reference to None on every Qt call that returns None
    # (QObject.parent(), an empty currentData(), each pyqtgraph repaint...) and loses references to
    # True/False somewhere too: ~30,000 such calls abort CPython 3.11 ("none_dealloc"), and any
    # deficit aborts it at exit. They are static singletons, so extra references are harmless
    # (from 3.12 on they are immortal anyway).
    for _singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(_singleton)).value += 1 << 40

COLUMNS = ("kbkssd_reference", "cpssd_published")
METHODS = ("kb_csv", "cp_csv")  # method names in the prediction CSV (built from COLUMNS)


def label_rows(sample: Path) -> list[dict[str, str]]:
    with open(sample / "labels.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def write_predictions(sample: Path, path: Path) -> Path:
    """A segview-detect-shaped CSV with both published onset columns as methods."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(("series_id", "method", "steady_index", "change_points", "runtime_ms"))
        for row in label_rows(sample):
            for col, method in zip(COLUMNS, METHODS):
                cell = row[col].strip()
                w.writerow((row["series_id"], method, cell if cell else -1, "", 0))
    return path


def hand_counts(sample: Path, column: str) -> dict[str, int]:
    """Agreement/FP/FN/TP/TN straight from labels.csv (steady = truth; onset -1/blank = never)."""
    out = dict.fromkeys(("agreement", "false_positive", "false_negative", "true_positive",
                         "true_negative"), 0)
    for row in label_rows(sample):
        truth = row["steady"].strip() == "1"
        says = row[column].strip() not in ("", "-1")
        key = {(True, True): "true_positive", (True, False): "false_negative",
               (False, True): "false_positive", (False, False): "true_negative"}[(truth, says)]
        out[key] += 1
        out["agreement"] += truth == says
    return out


@pytest.fixture
def explorer(qtbot, sample):
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    settings = Settings()
    settings.set_enabled_methods(set())  # the explorer computes nothing by itself here
    win = MainWindow(settings, specs=[registry.get("kbkssd")], persist=False)
    qtbot.addWidget(win)
    win.show()
    assert win.open_paths([str(sample)])
    return win


@pytest.fixture
def evaluation(qtbot, explorer, tmp_path):
    from segview.gui.evaluate.view import EvaluationWindow

    ev = EvaluationWindow(explorer)
    ev.cache_dir = str(tmp_path / "cache")
    qtbot.addWidget(ev)
    ev.show()
    yield ev
    ev.close()  # cancels, waits for the pool, removes the overlay from the explorer


def run_evaluation(qtbot, ev, timeout=60000):
    with qtbot.waitSignal(ev.evaluated, timeout=timeout) as blk:
        assert ev.evaluate()
    return blk.args[0]


def test_summary_matches_core_report_and_hand_counts(qtbot, evaluation, sample, tmp_path):
    ev = evaluation
    assert len(ev.truth) == 10  # truth taken from labels.csv beside the loaded series
    pred_csv = write_predictions(sample, tmp_path / "pred.csv")
    assert ev.add_prediction_file(pred_csv) == list(METHODS)
    run_evaluation(qtbot, ev)
    core = evaluate_onsets(read_truth(sample / "labels.csv"),
                           read_predictions([pred_csv]).onsets, list(METHODS))
    model = ev.summary_model
    assert model.rowCount() == 2
    for r, (m, col) in enumerate(zip(METHODS, COLUMNS)):
        assert model.data(model.index(r, 0)) == m
        for c, key in enumerate(METHOD_KEYS, start=1):
            want = core.method_row(m)[key]
            got = model.data(model.index(r, c), VALUE_ROLE)
            assert got == pytest.approx(want, nan_ok=True), (m, key)
        for key, n in hand_counts(sample, col).items():
            assert model.value(m, key) == n, (m, key)
            assert model.data(model.index(r, 1 + METHOD_KEYS.index(key))) == str(n)
    # tests table: the core's pairwise tests with BH-adjusted p-values
    tm = ev.tests_model
    assert tm.rowCount() == len(core.tests) > 0
    adj = [tm.data(tm.index(i, 5), VALUE_ROLE) for i in range(tm.rowCount())]
    assert adj == pytest.approx([t.p_adjusted for t in core.tests], nan_ok=True)
    # per-series table: the scored errors of the core, e = truth - predicted
    sm = ev.series_model
    assert sm.rowCount() == 10
    for m in METHODS:
        errs = dict(zip(core.errors[m].series_ids, core.errors[m].errors.tolist()))
        for sid, e in errs.items():
            assert sm.error(sid, m) == e
        col = sm.column(f"e {m}")
        for row, sid in enumerate(sm.ids):  # errors outside the joint scoring are greyed
            fg = sm.data(sm.index(row, col), Qt.ItemDataRole.ForegroundRole)
            unscored = isinstance(sm.error(sid, m), int) and sid not in errs
            assert (fg is not None and fg.color() == UNSCORED) == unscored
    # export through the core's report functions
    out = tmp_path / "report.json"
    assert ev.export_report(out)
    assert json.loads(out.read_text()) == json.loads(rep.format_json(core))
    assert ev.export_report(tmp_path / "report.csv") and \
        (tmp_path / "report.csv").read_text() == rep.format_csv(core)


def test_run_now_kbkssd_fills_the_table(qtbot, evaluation, sample):
    ev = evaluation
    name = ev.add_run("kbkssd")
    assert name == "kbkssd"
    progress: list[str] = []  # what the bar says at each report
    ev.panel.progress.valueChanged.connect(lambda v: progress.append(ev.panel.progress.format()))
    report = run_evaluation(qtbot, ev)
    assert report.methods == ["kbkssd"]
    truth = read_truth(sample / "labels.csv")
    onsets = {s.id: segview.detect(s, "kbkssd").steady_start for s in segview.load(sample)}
    agree = sum((onsets[sid] is not None) == row.steady for sid, row in truth.items())
    model = ev.summary_model
    assert model.value("kbkssd", "agreement") == agree
    assert model.data(model.index(0, 1)) == str(agree)
    assert ev.series_model.preds["kbkssd"] == onsets
    assert progress and progress[-1] == "10/10 runs"  # one run per series reported
    assert ev.panel.evaluate_button.isEnabled() and not ev.is_running()
    # a second evaluation reuses the finished runs (no job progress, same numbers)
    progress.clear()
    report2 = run_evaluation(qtbot, ev)
    assert report2.method_row("kbkssd") == report.method_row("kbkssd")
    assert progress == []


def test_clicking_a_row_opens_the_series_in_the_explorer(qtbot, evaluation, explorer, sample,
                                                         tmp_path):
    ev = evaluation
    ev.add_prediction_file(write_predictions(sample, tmp_path / "pred.csv"))
    run_evaluation(qtbot, ev)
    sid = "s0061"
    row = ev.series_model.ids.index(sid)
    index = ev.series_proxy.mapFromSource(ev.series_model.index(row, 0))
    rect = ev.series_view.visualRect(index)
    with qtbot.waitSignal(explorer.series_shown, timeout=5000,
                          check_params_cb=lambda s: s == sid):
        qtbot.mouseClick(ev.series_view.viewport(), Qt.MouseButton.LeftButton,
                         pos=rect.center())
    assert explorer.current.id == sid
    labels = {r["series_id"]: r for r in label_rows(sample)}
    truth = read_truth(sample / "labels.csv")[sid]
    if truth.steady:
        assert explorer.series_plot.reference.isVisible()
        assert explorer.series_plot.reference.value() == truth.reference
    drawn = ev.overlay.positions()
    for col, m in zip(COLUMNS, METHODS):
        cell = labels[sid][col].strip()
        want = None if cell in ("", "-1") else float(cell)
        assert drawn[m] == want


def test_malformed_prediction_file_shows_a_message(qtbot, evaluation, sample, tmp_path):
    ev = evaluation
    bad = tmp_path / "bad.csv"
    bad.write_text("series_id,method,steady_index\ns0002,kbkssd,abc\n", encoding="utf-8")
    with qtbot.waitSignal(ev.message_posted, timeout=1000) as blk:
        assert ev.add_prediction_file(bad) == []
    assert "bad.csv" in blk.args[0] and "abc" in blk.args[0]
    assert "abc" in ev.panel.message.text()
    missing_col = tmp_path / "nocol.csv"
    missing_col.write_text("series_id,steady_index\ns0002,5\n", encoding="utf-8")
    assert ev.add_prediction_file(missing_col) == []
    assert "method" in ev.panel.message.text()
    assert [e.kind for e in ev.entries] == ["labels", "labels"]  # nothing added
    # the app keeps working: a good file still evaluates
    ev.add_prediction_file(write_predictions(sample, tmp_path / "pred.csv"))
    report = run_evaluation(qtbot, ev)
    assert report.methods == list(METHODS)


def test_missing_predictions_are_reported_not_fatal(qtbot, evaluation, sample, tmp_path):
    ev = evaluation
    part = tmp_path / "part.csv"
    rows = label_rows(sample)[:4]
    part.write_text("series_id,method,steady_index\n" + "".join(
        f"{r['series_id']},m,{r['cpssd_published'] or -1}\n" for r in rows), encoding="utf-8")
    ev.add_prediction_file(part)
    report = run_evaluation(qtbot, ev)
    assert report.n_series == 4
    assert "6 truth series without a prediction" in ev.headline.text()


def test_menu_action_opens_the_view(qtbot, explorer):
    acts = [a for a in explorer.findChildren(type(explorer.actions()[0]))
            if a.text().replace("&", "") == "Evaluate…"]
    assert len(acts) == 1 and acts[0].shortcut().toString() == "Ctrl+Shift+E"
    acts[0].trigger()
    ev = explorer.evaluation_window
    qtbot.addWidget(ev)
    assert ev.isVisible() and len(ev.series) == 10 and len(ev.truth) == 10
    assert [e.name for e in ev.entries] == ["cpssd_published", "kbkssd_reference"]  # file order
    assert ev.panel.checked_names() == []
    ev.close()


def test_run_now_uses_the_explorers_current_parameters(qtbot, evaluation, explorer, sample):
    ev = evaluation
    ev.add_run("kbkssd")
    run_evaluation(qtbot, ev)
    default = dict(ev.series_model.preds["kbkssd"])
    explorer.params["kbkssd"] = explorer.params["kbkssd"].replace(prob_win_size=300)
    run_evaluation(qtbot, ev)  # parameters changed: runs again
    want = {s.id: segview.detect(s, "kbkssd", prob_win_size=300).steady_start
            for s in segview.load(sample)}
    assert ev.series_model.preds["kbkssd"] == want
    assert want != default  # the parameter matters on the sample, so the test can fail


def test_cancel_stops_a_running_evaluation(qtbot, evaluation):
    from . import fakes

    ev = evaluation
    with fakes.registered(fakes.FAKE_SLOW):
        assert ev.add_run("fake_slow") == "fake_slow"
        seen: list[int] = []
        ev.panel.progress.valueChanged.connect(seen.append)
        assert ev.evaluate()
        assert ev.is_running() and ev.panel.cancel_button.isEnabled()
        qtbot.waitUntil(lambda: any(v >= 1 for v in seen), timeout=10000)
        with qtbot.waitSignal(ev.evaluation_failed, timeout=10000) as blk:
            ev.cancel()
        assert blk.args == ["cancelled"]
        assert not ev.is_running() and ev.panel.evaluate_button.isEnabled()
        assert len(fakes.LOG.finished) < 10  # stopped before running every series
        assert ev.report is None and "cancelled" in ev.panel.message.text()


def test_truth_file_gives_the_same_numbers_and_a_bad_one_a_message(qtbot, evaluation, sample,
                                                                    tmp_path):
    ev = evaluation
    gt = tmp_path / "gt.csv"
    with open(gt, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(("series_id", "steady", "reference_index", "clustered"))
        for r in label_rows(sample):
            w.writerow((r["series_id"], r["steady"], r["jagt_index"] or -1, r["jagt_clustered"]))
    assert ev.set_truth_file(gt)
    assert "10 series" in ev.panel.truth_label.text()
    pred_csv = write_predictions(sample, tmp_path / "pred.csv")
    ev.add_prediction_file(pred_csv)
    report = run_evaluation(qtbot, ev)
    core = evaluate_onsets(read_truth(gt), read_predictions([pred_csv]).onsets, list(METHODS))
    assert report.to_json_dict()["methods"] == core.to_json_dict()["methods"]
    bad = tmp_path / "bad_gt.csv"
    bad.write_text("series_id,steady,reference_index,clustered\ns0002,maybe,5,0\n", "utf-8")
    assert not ev.set_truth_file(bad)
    assert "maybe" in ev.panel.message.text()
    assert ev.truth_source == str(gt)  # the previous truth stays


def test_series_table_marks_misses_and_unscored_errors(qapp):
    from segview.core.evaluation.metrics import TruthRow
    from segview.gui.evaluate.tables import SeriesErrorModel

    truth = {"a": TruthRow("a", True, 100, True), "b": TruthRow("b", True, 50, False),
             "c": TruthRow("c", False)}
    preds = {"A": {"a": 90, "b": 70, "c": 5}, "B": {"a": 130, "b": None, "c": None}}
    report = evaluate_onsets(truth, preds, ["A", "B"])
    assert report.errors["A"].series_ids == ("a",)  # joint scoring: b is left out
    m = SeriesErrorModel()
    m.set_data(truth, preds, ["A", "B"], {k: report.errors[k].series_ids for k in ("A", "B")})
    assert [m.error(s, "A") for s in "abc"] == [10, -20, "FP"]
    assert [m.error(s, "B") for s in "abc"] == [-30, "FN", None]
    assert [m.max_abs_error(s) for s in "abc"] == [30, 20, None]
    col = m.column("e A")
    grey = [m.data(m.index(r, col), Qt.ItemDataRole.ForegroundRole) for r in range(3)]
    assert grey[0] is None and grey[1].color() == UNSCORED and grey[2] is None
    assert m.data(m.index(2, col), Qt.ItemDataRole.BackgroundRole) is not None  # FP shaded


def test_report_order_follows_the_method_list(qtbot, evaluation, sample, tmp_path):
    ev = evaluation
    ev.add_prediction_file(write_predictions(sample, tmp_path / "pred.csv"))
    ev.panel.move_to("cp_csv", 0)
    assert run_evaluation(qtbot, ev).methods == ["cp_csv", "kb_csv"]
    assert ev.summary_model.data(ev.summary_model.index(0, 0)) == "cp_csv"
    assert ev.tests_model.tests[0].method_a == "cp_csv"


def test_a_segview_detect_csv_evaluates_like_run_now(qtbot, evaluation, sample, tmp_path):
    from segview.cli.main import main

    out = tmp_path / "detect.csv"
    assert main(["detect", str(sample), "-m", "kbkssd", "-o", str(out)]) == 0
    ev = evaluation
    assert ev.add_prediction_file(out) == ["kbkssd"]
    assert ev.add_run("kbkssd") == "kbkssd #2"
    report = run_evaluation(qtbot, ev)
    assert report.method_row("kbkssd") == report.method_row("kbkssd #2")
    assert ev.series_model.preds["kbkssd"] == ev.series_model.preds["kbkssd #2"]


def test_ctrl_w_closes_the_evaluation_window(qtbot, evaluation):
    from PySide6.QtGui import QKeySequence, QShortcut

    close = QKeySequence("Ctrl+W")
    (shortcut,) = [s for s in evaluation.findChildren(QShortcut) if s.key() == close]
    shortcut.activated.emit()  # what Qt's shortcut map does for the key in the active window
    qtbot.waitUntil(lambda: not evaluation.isVisible(), timeout=5000)
