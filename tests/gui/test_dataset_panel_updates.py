"""The series table after a parameter change: every cell of the method's column is cleared and
the views hear of each cleared cell, without a whole-column refresh on every slider move (which
made the sort proxy re-filter every row and the tree repaint the column)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QModelIndex, Qt

from segview.core import registry
from segview.core.model import Series
from segview.gui.dataset_panel import CELL_FLUSH_MS, FEW_CELLS, DatasetPanel


def panel_with(n: int, qtbot) -> DatasetPanel:
    panel = DatasetPanel()
    qtbot.addWidget(panel)
    series = [Series(np.arange(50.0), id=f"s{k:03d}") for k in range(n)]
    panel.model.set_methods([registry.get("pelt"), registry.get("binseg")])
    panel.model.set_dataset(series, {})
    return panel


def covered(changes: list[tuple[QModelIndex, QModelIndex]], index: QModelIndex) -> bool:
    return any(a.parent() == index.parent() and a.row() <= index.row() <= b.row()
               and a.column() <= index.column() <= b.column() for a, b in changes)


def check_clear(panel: DatasetPanel, ids: list[str]) -> list:
    model = panel.model
    for sid in ids:
        model.set_result(sid, "pelt", "3 cp", 3.0)
        model.set_result(sid, "binseg", "2 cp", 2.0)
    model.flush()
    changes: list = []
    model.dataChanged.connect(lambda a, b, roles=(): changes.append((a, b)))
    model.clear_method("pelt")
    model.flush()  # (the views hear within CELL_FLUSH_MS; see the test below)
    col = 4  # after Series, n, Label, Ref
    for sid in ids:
        index = model.index_of(sid, col)
        assert model.data(index, Qt.ItemDataRole.DisplayRole) == ""
        assert covered(changes, index), f"the view was not told that {sid}'s cell was cleared"
        other = model.index_of(sid, col + 1)
        assert model.data(other, Qt.ItemDataRole.DisplayRole) == "2 cp"  # another method's cell
    return changes


def test_a_slider_move_tells_the_view_of_the_cleared_cell_only(qtbot):
    panel = panel_with(40, qtbot)
    changes = check_clear(panel, ["s007"])
    rows = sum(b.row() - a.row() + 1 for a, b in changes)
    assert rows == 1, f"{rows} rows refreshed for one cleared cell"


def test_clearing_many_cells_refreshes_the_whole_column(qtbot):
    panel = panel_with(40, qtbot)
    check_clear(panel, [f"s{k:03d}" for k in range(FEW_CELLS + 3)])


def test_roles_the_table_does_not_use_are_none(qtbot):
    panel = panel_with(3, qtbot)
    model = panel.model
    model.set_result("s001", "pelt", "3 cp", 3.0)
    index = model.index_of("s001", 4)
    assert model.data(index, Qt.ItemDataRole.DisplayRole) == "3 cp"
    assert model.data(index, Qt.ItemDataRole.TextAlignmentRole) is not None
    for role in (Qt.ItemDataRole.DecorationRole, Qt.ItemDataRole.BackgroundRole,
                 Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.SizeHintRole):
        assert model.data(index, role) is None


def test_a_drag_is_announced_once_per_flush_and_by_itself(qtbot):
    """Clear and refill of the same cell (a slider move) within the flush window reach the views
    as one change, on their own after at most CELL_FLUSH_MS; an unchanged result is no change."""
    panel = panel_with(10, qtbot)
    model = panel.model
    model.set_result("s003", "pelt", "3 cp", 3.0)
    model.flush()
    changes: list = []
    model.dataChanged.connect(lambda a, b, roles=(): changes.append((a, b)))
    model.clear_method("pelt")
    model.set_result("s003", "pelt", "4 cp", 4.0)
    assert changes == []  # not yet: coalesced
    with qtbot.waitSignal(model.dataChanged, timeout=20 * CELL_FLUSH_MS):
        pass
    assert len(changes) == 1 and covered(changes, model.index_of("s003", 4))
    changes.clear()
    model.set_result("s003", "pelt", "4 cp", 4.0)
    model.flush()
    assert changes == []


def test_a_new_dataset_drops_pending_announcements(qtbot):
    panel = panel_with(10, qtbot)
    model = panel.model
    model.set_result("s003", "pelt", "3 cp", 3.0)
    model.set_dataset([Series(np.arange(50.0), id="other")], {})
    changes: list = []
    model.dataChanged.connect(lambda a, b, roles=(): changes.append((a, b)))
    model.flush()
    assert changes == []


def test_the_header_is_announced_only_when_its_mark_comes_or_goes(qtbot):
    """The header shows a mark for changed parameters (the values are in its tooltip): a new
    value of an already changed parameter must not re-lay out the tree (it did on every move)."""
    panel = panel_with(10, qtbot)
    model = panel.model
    heard: list = []
    model.headerDataChanged.connect(lambda o, a, b: heard.append((a, b)))
    model.set_method_note("pelt", "penalty=3")
    with qtbot.waitSignal(model.headerDataChanged, timeout=20 * CELL_FLUSH_MS):
        pass
    assert heard == [(4, 4)] and model.headerData(4, Qt.Orientation.Horizontal).endswith("\u2022")
    for value in (4, 5, 6):
        model.set_method_note("pelt", f"penalty={value}")
    model.flush()
    assert heard == [(4, 4)]
    assert "penalty=6" in model.headerData(4, Qt.Orientation.Horizontal,
                                           Qt.ItemDataRole.ToolTipRole)
    model.set_method_note("pelt", "")
    model.flush()
    assert heard == [(4, 4), (4, 4)] and not model.headerData(4, Qt.Orientation.Horizontal
                                                              ).endswith("\u2022")
