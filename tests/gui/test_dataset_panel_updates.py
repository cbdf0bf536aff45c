"""The series table after a parameter change: every cell of the method's column is cleared and
the views hear of each cleared cell, without a whole-column refresh on every slider move (which
made the sort proxy re-filter every row and the tree repaint the column)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QModelIndex, Qt

from segview.core import registry
from segview.core.model import Series
from segview.gui.dataset_panel import FEW_CELLS, DatasetPanel


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
    changes: list = []
    model.dataChanged.connect(lambda a, b, roles=(): changes.append((a, b)))
    model.clear_method("pelt")
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
