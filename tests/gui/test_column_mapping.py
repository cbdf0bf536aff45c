"""The column-mapping dialog: guessed mapping preselected, preview follows the combo boxes, OK gives
the mapping; the explorer offers it for a table the usual reader cannot read and remembers it."""
import csv
import io

import pytest
from PySide6.QtWidgets import QDialog, QDialogButtonBox

from segview.core.io import columns as cols
from segview.gui.column_mapping import ColumnMappingDialog

from . import fakes

TABLE = """benchmark,fork,iteration,time_ns,cycles,unit
fib,0,0,90,900,ns
fib,0,1,50,500,ns
fib,0,2,51,510,ns
fib,1,0,80,800,ns
fib,1,1,49,490,ns
sort,0,0,30,300,ns
sort,0,1,31,310,ns
"""


@pytest.fixture(autouse=True)
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("SEGVIEW_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


@pytest.fixture
def table(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    path = folder / "bench.csv"
    path.write_text(TABLE)
    return path


def counts(text=TABLE):
    rows = list(csv.DictReader(io.StringIO(text)))
    benches = {r["benchmark"] for r in rows}
    execs = {(r["benchmark"], r["fork"]) for r in rows}
    return rows, benches, execs


def test_guess_is_preselected_and_preview_shows_counts(qtbot, table):
    dlg = ColumnMappingDialog(table)
    qtbot.addWidget(dlg)
    assert dlg.combos["benchmark"].currentText() == "benchmark"
    assert dlg.combos["execution"].currentText() == "fork"
    assert dlg.combos["iteration"].currentText() == "iteration"
    assert dlg.combos["value"].currentText() == "time_ns"
    assert dlg.combos["unit"].currentText() == "unit"
    assert dlg.combos["time"].currentText() == "(none)"
    rows, benches, execs = counts()
    lens = sorted({sum(1 for r in rows if (r["benchmark"], r["fork"]) == e) for e in execs})
    assert dlg.preview_label.text() == (
        f"Would load: {len(benches)} benchmark(s) x {len(execs)} execution(s) x "
        f"{lens[0]}-{lens[-1]} iterations, unit {rows[0]['unit']} (lower is better)")
    assert dlg.grid.rowCount() == len(rows) and dlg.grid.columnCount() == 6
    assert dlg.grid.item(0, 3).text() == rows[0]["time_ns"]


def test_preview_updates_on_a_combo_change(qtbot, table):
    dlg = ColumnMappingDialog(table)
    qtbot.addWidget(dlg)
    ok = dlg.buttons.button(QDialogButtonBox.StandardButton.Ok)
    with qtbot.waitSignal(dlg.previewed, timeout=2000) as sig:
        dlg.combos["execution"].setCurrentText("(none)")
    rows, benches, _ = counts()
    per_bench = sorted(sum(1 for r in rows if r["benchmark"] == b) for b in benches)
    # without the execution column, fib's forks share iteration numbers: a named error
    assert "Cannot load" in sig.args[0] and "iteration 0" in sig.args[0] and "line 5" in sig.args[0]
    assert not ok.isEnabled() and dlg.mapping() is None
    with qtbot.waitSignal(dlg.previewed, timeout=2000) as sig:
        dlg.combos["iteration"].setCurrentText("(none)")
    assert sig.args[0] == (f"Would load: {len(benches)} benchmark(s) x {len(benches)} "
                           f"execution(s) x {per_bench[0]}-{per_bench[-1]} iterations, "
                           f"unit {rows[0]['unit']} (lower is better)")
    assert ok.isEnabled()
    with qtbot.waitSignal(dlg.previewed, timeout=2000) as sig:
        dlg.combos["value"].setCurrentText("benchmark")
    assert "'fib' is not a number" in sig.args[0] and "line 2, column 'benchmark'" in sig.args[0]


def test_ok_gives_the_mapping(qtbot, table):
    dlg = ColumnMappingDialog(table)
    qtbot.addWidget(dlg)
    dlg.combos["value"].setCurrentText("cycles")
    dlg.unit_edit.setText("cycles")
    dlg.combos["unit"].setCurrentText("(none)")
    with qtbot.waitSignal(dlg.accepted, timeout=2000):
        dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    m = dlg.mapping()
    assert (m.benchmark, m.execution, m.iteration, m.value, m.unit, m.unit_value, m.layout) == (
        "benchmark", "fork", "iteration", "cycles", None, "cycles", "long")
    assert {s.id: s.values.tolist() for s in cols.read_mapped(table, m)}["fib/exec1"] == [800.0,
                                                                                         490.0]


def test_wide_layout_and_unreadable_file(qtbot, tmp_path):
    wide = tmp_path / "w.csv"
    wide.write_text("a,b\n1,2\n3,\n")
    dlg = ColumnMappingDialog(wide)
    qtbot.addWidget(dlg)
    assert dlg.layout_box.currentText() == "wide" and dlg.combos["value"].currentData() == "*"
    assert dlg.preview_label.text() == "Would load: 2 benchmark(s) x 2 execution(s) x 1-2 iterations"
    empty = tmp_path / "e.csv"
    empty.write_text("")
    dlg2 = ColumnMappingDialog(empty)
    qtbot.addWidget(dlg2)
    assert "empty" in dlg2.preview_label.text() and dlg2.mapping() is None


def test_explorer_offers_the_dialog_and_remembers_the_mapping(qtbot, make_window, table,
                                                               monkeypatch, config):
    win = make_window(fakes.FAKE_CP)
    seen = []

    def accept(dialog):
        seen.append(dialog.preview_label.text())
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ColumnMappingDialog, "exec", accept)
    assert win.open_paths([str(table)], background=False)
    _, benches, execs = counts()
    assert seen and seen[0].startswith(f"Would load: {len(benches)} benchmark(s)")
    assert sorted(s.id for s in win.series) == sorted(f"{b}/exec{k}" for b in benches
                                                      for k in range(sum(e[0] == b for e in execs)))
    m = cols.remembered_mapping(table, config_dir=config)
    assert m is not None and m.value == "time_ns"
    # a second table in the folder now opens without the dialog
    seen.clear()
    other = table.parent / "again.csv"
    other.write_text(TABLE.replace("fib", "fft"))
    assert win.open_paths([str(other)], background=False)
    assert not seen and any(s.id.startswith("fft/") for s in win.series)


def test_explorer_cancel_keeps_the_previous_data(qtbot, make_window, table, monkeypatch, config):
    win = make_window(fakes.FAKE_CP)
    monkeypatch.setattr(ColumnMappingDialog, "exec", lambda d: QDialog.DialogCode.Rejected)
    before = list(win.series)
    messages = []
    win.message_posted.connect(messages.append)
    win.open_paths([str(table)], background=False)
    assert list(win.series) == before and "Not opened" in messages[-1]
    assert cols.remembered_mapping(table, config_dir=config) is None


def test_file_menu_has_the_entry(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    file_menu = win.menuBar().actions()[0].menu()
    assert "Import table with column mapping…" in [a.text() for a in file_menu.actions()]


def test_rows_layout_with_a_crashed_execution_in_the_preview(qtbot, tmp_path):
    path = tmp_path / "ws.csv"
    path.write_text("process_exec_idx,bench_name,0,1,2\n0,fib,3,2,2\n1,fib,,,\n")
    dlg = ColumnMappingDialog(path)
    qtbot.addWidget(dlg)
    assert dlg.layout_box.currentText() == "rows"
    text = dlg.preview_label.text()
    assert text.startswith("Would load: 1 benchmark(s) x 1 execution(s) x 3 iterations")
    assert "line 3: execution '1' of 'fib' has no values" in text
