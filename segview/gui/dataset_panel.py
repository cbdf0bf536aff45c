"""The dataset panel: loaded series with label status and per-method results, searchable, sortable."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import (QAbstractTableModel, QModelIndex, QPersistentModelIndex,
                            QSortFilterProxyModel, Qt, Signal)
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLineEdit, QTableView, QVBoxLayout, QWidget

from ..core.io.labels_csv import LabelRow
from ..core.model import Series
from ..core.registry import DetectorSpec

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
FIXED = ("Series", "n", "Label", "Ref")
NONE_SORT = float("inf")  # "never steady" / missing sorts last


class SeriesTableModel(QAbstractTableModel):
    """Rows: series. Columns: id, length, steady label, reference onset, one per method."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.series: list[Series] = []
        self.labels: dict[str, LabelRow] = {}
        self.methods: list[DetectorSpec] = []
        self._cells: dict[tuple[str, str], tuple[str, float]] = {}
        self._row_of: dict[str, int] = {}
        self.notes: dict[str, str] = {}  # method -> its non-default parameters (header mark)

    def set_method_note(self, method: str, note: str) -> None:
        """Mark a method's column as computed with non-default parameters (``note`` lists them;
        "" for the faithful defaults). A column only ever holds results of the current ones."""
        if self.notes.get(method, "") == note:
            return
        self.notes[method] = note
        col = self._column_of(method)
        if col is not None:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, col, col)

    def set_dataset(self, series: list[Series], labels: dict[str, LabelRow]) -> None:
        self.beginResetModel()
        self.series, self.labels = list(series), dict(labels)
        self._row_of = {s.id: i for i, s in enumerate(self.series)}
        self._cells.clear()
        self.endResetModel()

    def set_methods(self, specs: list[DetectorSpec]) -> None:
        self.beginResetModel()
        self.methods = list(specs)
        self.endResetModel()

    def set_result(self, series_id: str, method: str, text: str, sort: float) -> None:
        self._cells[(series_id, method)] = (text, sort)
        self._cell_changed(series_id, method)

    def clear_method(self, method: str) -> None:
        for key in [k for k in self._cells if k[1] == method]:
            del self._cells[key]
        col = self._column_of(method)
        if col is not None and self.series:
            self.dataChanged.emit(self.index(0, col), self.index(len(self.series) - 1, col))

    def cell(self, series_id: str, method: str) -> str | None:
        got = self._cells.get((series_id, method))
        return None if got is None else got[0]

    def _column_of(self, method: str) -> int | None:
        for j, s in enumerate(self.methods):
            if s.name == method:
                return len(FIXED) + j
        return None

    def _cell_changed(self, series_id: str, method: str) -> None:
        row, col = self._row_of.get(series_id), self._column_of(method)
        if row is not None and col is not None:
            idx = self.index(row, col)
            self.dataChanged.emit(idx, idx)

    def row_of(self, series_id: str) -> int | None:
        return self._row_of.get(series_id)

    # Qt model interface
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.series)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(FIXED) + len(self.methods)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if section < len(FIXED):
                return FIXED[section]
            name = self.methods[section - len(FIXED)].name
            return name + (" \u2022" if self.notes.get(name) else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            if section < len(FIXED):
                return ("series id", "number of samples", "steady according to the labels table",
                        "reference onset (aggregated judges)")[section]
            spec = self.methods[section - len(FIXED)]
            note = self.notes.get(spec.name)
            return (f"{spec.label}: onset (or number of change points) with the current "
                    "parameters; a parameter change clears the column"
                    + (f"\n\u2022 computed with changed parameters: {note}" if note
                       else "\n(defaults)"))
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        s = self.series[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(s, col)
        if role == SORT_ROLE:
            return self._sort(s, col)
        if role == Qt.ItemDataRole.TextAlignmentRole and col > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            return str(s.metadata.get("source", s.id))
        return None

    def _display(self, s: Series, col: int) -> str:
        lab = self.labels.get(s.id)
        if col == 0:
            return s.id
        if col == 1:
            return str(len(s))
        if col == 2:
            return "" if lab is None or lab.steady is None else ("steady" if lab.steady else "never")
        if col == 3:
            return "" if lab is None or lab.jagt_index is None else str(lab.jagt_index)
        got = self._cells.get((s.id, self.methods[col - len(FIXED)].name))
        return "" if got is None else got[0]

    def _sort(self, s: Series, col: int) -> Any:
        lab = self.labels.get(s.id)
        if col == 0:
            return s.id
        if col == 1:
            return float(len(s))
        if col == 2:
            return -1.0 if lab is None or lab.steady is None else float(lab.steady)
        if col == 3:
            return NONE_SORT if lab is None or lab.jagt_index is None else float(lab.jagt_index)
        got = self._cells.get((s.id, self.methods[col - len(FIXED)].name))
        return NONE_SORT if got is None else got[1]


class DatasetPanel(QWidget):
    """Search box and table; emits ``series_selected(series_id)``."""

    series_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = SeriesTableModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterKeyColumn(0)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search series (id)…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.proxy.setFilterFixedString)
        self.table = QTableView(self)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        # Interactive + one-off fitting: ResizeToContents re-measured every cell on every result
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.model.modelReset.connect(self.table.resizeColumnsToContents)
        # fitted to the first 100 rows, not Qt's default 1000: 14 columns x 1000 rows of data()
        # calls held the GUI thread ~0.3 s when a folder of 5,000 series came in
        self.table.horizontalHeader().setResizeContentsPrecision(100)
        self.table.setAlternatingRowColors(True)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_changed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.search)
        lay.addWidget(self.table)

    def current_id(self) -> str | None:
        idx = self.table.currentIndex()
        if not idx.isValid():
            return None
        return self.model.series[self.proxy.mapToSource(idx).row()].id

    def select(self, series_id: str) -> bool:
        row = self.model.row_of(series_id)
        if row is None:
            return False
        idx = self.proxy.mapFromSource(self.model.index(row, 0))
        if not idx.isValid():  # filtered out: clear the filter so it can be shown
            self.search.clear()
            idx = self.proxy.mapFromSource(self.model.index(row, 0))
        self.table.setCurrentIndex(idx)
        self.table.scrollTo(idx)
        return True

    def step(self, delta: int) -> bool:
        """Select the next (+1) or previous (-1) visible row."""
        n = self.proxy.rowCount()
        if n == 0:
            return False
        cur = self.table.currentIndex()
        row = 0 if not cur.isValid() else min(max(cur.row() + delta, 0), n - 1)
        if cur.isValid() and row == cur.row():
            return False
        self.table.setCurrentIndex(self.proxy.index(row, 0))
        return True

    def _on_table_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.series_selected.emit(self.model.series[self.proxy.mapToSource(current).row()].id)
