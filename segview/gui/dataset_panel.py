"""The dataset panel: loaded benchmarks and their executions with label status and per-method
results (roll-ups on a benchmark's row), searchable, sortable.

A tree: one row per benchmark (:func:`segview.core.benchmark.group`, what
``Dataset.benchmarks()`` returns), its process executions as child rows. A benchmark with one
execution (a CSV column, a TCPD data set, a JMH fork list of one fork) is a single row without
children, so a folder of plain series looks as a flat list.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import (QAbstractItemModel, QModelIndex, QPersistentModelIndex,
                            QSortFilterProxyModel, Qt, QTimer, Signal, Slot)
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QTreeView, QVBoxLayout, QWidget

from ..core.benchmark import Benchmark, execution_index, group, warmup_count
from ..core.io.labels_csv import LabelRow
from ..core.model import Series
from ..core.registry import DetectorSpec

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
FILTER_ROLE = Qt.ItemDataRole.UserRole + 2  # what the search matches: benchmark and series names
FIXED = ("Series", "n", "Label", "Ref")
NONE_SORT = float("inf")  # "never steady" / missing sorts last
TOP = 0  # internal id of a top-level row; a child row's is its parent's row + 1
#: the roles :meth:`SeriesTableModel.data` answers (anything else is None)
ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.TextAlignmentRole,
                   Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.FontRole, SORT_ROLE, FILTER_ROLE})
FEW_CELLS = 16  # clear_method notifies cell by cell up to this many, else the whole column
#: result cells are announced to the views at most this often (ms): a slider drag clears and
#: refills a cell on every move, and each announcement repaints the tree and re-filters the sort
#: proxy on the GUI thread, in the way of the overlay the user is watching
CELL_FLUSH_MS = 100


class SeriesTableModel(QAbstractItemModel):
    """Rows: benchmarks (a single-execution benchmark is its series' row), children: executions.
    Columns: id, length, steady label, reference onset, one per method (a benchmark's row holds
    the method's roll-up over its executions)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.series: list[Series] = []
        self.benchmarks: list[Benchmark] = []
        self.labels: dict[str, LabelRow] = {}
        self.methods: list[DetectorSpec] = []
        self._cells: dict[tuple[str, str], tuple[str, float]] = {}
        self._rollups: dict[tuple[str, str], tuple[str, float]] = {}  # (benchmark, method)
        self._where: dict[str, tuple[int, int]] = {}  # series id -> (top row, child row or -1)
        self._bench_row: dict[str, int] = {}  # multi-execution benchmark name -> top row
        self.notes: dict[str, str] = {}  # method -> its non-default parameters (header mark)
        # cells changed since the views last heard: (series id or benchmark name, method, True
        # for a benchmark's roll-up); methods whose whole column changed
        self._dirty: set[tuple[str, str, bool]] = set()
        self._dirty_columns: set[str] = set()
        self._dirty_headers: set[str] = set()
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(CELL_FLUSH_MS)
        self._flush_timer.timeout.connect(self.flush)

    def set_method_note(self, method: str, note: str) -> None:
        """Mark a method's column as computed with non-default parameters (``note`` lists them;
        "" for the faithful defaults). A column only ever holds results of the current ones."""
        before = self.notes.get(method, "")
        if before == note:
            return
        self.notes[method] = note
        col = self._column_of(method)
        # the header shows only whether there is a note (its tooltip, read on hover, shows the
        # note); a header change re-lays out and repaints the whole tree (tens of ms of GUI-thread
        # CPU), so it is announced only when the mark comes or goes, with the next flush
        if col is not None and bool(before) != bool(note):
            self._dirty_headers.add(method)
            if not self._flush_timer.isActive():
                self._flush_timer.start()

    def set_dataset(self, series: list[Series], labels: dict[str, LabelRow]) -> None:
        self.beginResetModel()
        self.series, self.labels = list(series), dict(labels)
        self.benchmarks = group(self.series)
        self._where.clear()
        self._bench_row.clear()
        for r, b in enumerate(self.benchmarks):
            if len(b) == 1:
                self._where[b.executions[0].id] = (r, -1)
            else:
                self._bench_row[b.name] = r
                for c, s in enumerate(b.executions):
                    self._where[s.id] = (r, c)
        self._cells.clear()
        self._rollups.clear()
        self._forget_dirty()
        self.endResetModel()

    def set_methods(self, specs: list[DetectorSpec]) -> None:
        self.beginResetModel()
        self.methods = list(specs)
        self._forget_dirty()
        self.endResetModel()

    def set_result(self, series_id: str, method: str, text: str, sort: float) -> None:
        if self._cells.get((series_id, method)) == (text, sort):
            return
        self._cells[(series_id, method)] = (text, sort)
        self._mark(series_id, method, False)

    def set_rollup(self, benchmark: str, method: str, text: str, sort: float) -> None:
        """The roll-up shown on a multi-execution benchmark's row."""
        if self._rollups.get((benchmark, method)) == (text, sort):
            return
        self._rollups[(benchmark, method)] = (text, sort)
        self._mark(benchmark, method, True)

    def clear_method(self, method: str) -> None:
        cells = [k for k in self._cells if k[1] == method]
        rollups = [k for k in self._rollups if k[1] == method]
        for key in cells:
            del self._cells[key]
        for key in rollups:
            del self._rollups[key]
        col = self._column_of(method)
        if col is None:
            return
        if len(cells) + len(rollups) <= FEW_CELLS:
            # a slider move clears one or two cells: a whole-column dataChanged makes the sort
            # proxy re-filter every row and the tree repaint the column (~15 ms on every move)
            for sid, _ in cells:
                self._mark(sid, method, False)
            for name, _ in rollups:
                self._mark(name, method, True)
            return
        self._dirty_columns.add(method)
        self._flush_timer.start()

    def _mark(self, key: str, method: str, rollup: bool) -> None:
        """Announce a changed cell with the next :meth:`flush` (at most ``CELL_FLUSH_MS`` from
        now; the timer is not restarted, so a long drag still shows its results)."""
        self._dirty.add((key, method, rollup))
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _forget_dirty(self) -> None:
        self._dirty.clear()
        self._dirty_columns.clear()
        self._dirty_headers.clear()
        self._flush_timer.stop()

    @Slot()
    def flush(self) -> None:
        """Tell the views of every cell and header changed since the last call."""
        self._flush_timer.stop()
        dirty, self._dirty = self._dirty, set()
        columns, self._dirty_columns = self._dirty_columns, set()
        headers, self._dirty_headers = self._dirty_headers, set()
        for method in headers:
            col = self._column_of(method)
            if col is not None:
                self.headerDataChanged.emit(Qt.Orientation.Horizontal, col, col)
        for method in columns:
            col = self._column_of(method)
            if col is None:
                continue
            if self.benchmarks:
                self.dataChanged.emit(self.index(0, col), self.index(len(self.benchmarks) - 1, col))
            for r in self._bench_row.values():
                parent = self.index(r, 0)
                n = len(self.benchmarks[r])
                self.dataChanged.emit(self.index(0, col, parent), self.index(n - 1, col, parent))
        for key, method, rollup in dirty:
            if method in columns:
                continue
            self._cell_changed(self.benchmark_index(key) if rollup else self.index_of(key), method)

    def cell(self, series_id: str, method: str) -> str | None:
        got = self._cells.get((series_id, method))
        return None if got is None else got[0]

    def rollup(self, benchmark: str, method: str) -> str | None:
        got = self._rollups.get((benchmark, method))
        return None if got is None else got[0]

    def _column_of(self, method: str) -> int | None:
        for j, s in enumerate(self.methods):
            if s.name == method:
                return len(FIXED) + j
        return None

    def _cell_changed(self, index: QModelIndex, method: str) -> None:
        col = self._column_of(method)
        if index.isValid() and col is not None:
            idx = index.siblingAtColumn(col)
            self.dataChanged.emit(idx, idx)

    # lookups
    def index_of(self, series_id: str, column: int = 0) -> QModelIndex:
        """The row of a series (a single-execution benchmark's top row, or an execution's)."""
        where = self._where.get(series_id)
        if where is None:
            return QModelIndex()
        top, child = where
        if child < 0:
            return self.index(top, column)
        return self.index(child, column, self.index(top, 0))

    def benchmark_index(self, name: str) -> QModelIndex:
        """The row of a multi-execution benchmark (invalid for a single-execution one)."""
        r = self._bench_row.get(name)
        return QModelIndex() if r is None else self.index(r, 0)

    def benchmark_of(self, series_id: str) -> Benchmark | None:
        where = self._where.get(series_id)
        return None if where is None else self.benchmarks[where[0]]

    def benchmark_named(self, name: str) -> Benchmark | None:
        r = self._bench_row.get(name)
        return None if r is None else self.benchmarks[r]

    def node(self, index: QModelIndex | QPersistentModelIndex) -> Series | Benchmark | None:
        """What a row shows: a Series (an execution, or a single-execution benchmark) or a
        multi-execution Benchmark."""
        if not index.isValid():
            return None
        pid = index.internalId()
        if pid == TOP:
            b = self.benchmarks[index.row()]
            return b.executions[0] if len(b) == 1 else b
        return self.benchmarks[pid - 1].executions[index.row()]

    def row_of(self, series_id: str) -> int | None:
        """Top-level row holding a series (its own or its benchmark's)."""
        where = self._where.get(series_id)
        return None if where is None else where[0]

    # Qt model interface
    def index(self, row: int, column: int,
              parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:
        if column < 0 or column >= self.columnCount() or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, TOP) if row < len(self.benchmarks) \
                else QModelIndex()
        if parent.internalId() != TOP:
            return QModelIndex()
        b = self.benchmarks[parent.row()]
        if len(b) == 1 or row >= len(b):
            return QModelIndex()
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self,  # type: ignore[override]  # QAbstractItemModel.parent is overloaded (parent() -> QObject); the model implements the index overload
               index: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:
        if not index.isValid() or index.internalId() == TOP:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, TOP)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        if not parent.isValid():
            return len(self.benchmarks)
        if parent.internalId() != TOP or parent.column() != 0:
            return 0
        b = self.benchmarks[parent.row()]
        return 0 if len(b) == 1 else len(b)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return len(FIXED) + len(self.methods)

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
                return ("series id; a benchmark's process executions are its children",
                        "number of samples (a benchmark: its executions)",
                        "steady according to the labels table",
                        "reference onset (aggregated judges)")[section]
            spec = self.methods[section - len(FIXED)]
            note = self.notes.get(spec.name)
            return (f"{spec.label}: onset (or number of change points) with the current "
                    "parameters; on a benchmark's row: how many executions are steady and "
                    "their median onset; a parameter change clears the column"
                    + (f"\n\u2022 computed with changed parameters: {note}" if note
                       else "\n(defaults)"))
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in ROLES:  # a painted cell asks for ~10 roles; answer the others at once
            return None
        node = self.node(index)
        if node is None:
            return None
        col = index.column()
        if isinstance(node, Benchmark):
            return self._benchmark_data(node, col, role)
        child = index.internalId() != TOP
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(node, col, child)
        if role == SORT_ROLE:
            return self._sort(node, col, child)
        if role == FILTER_ROLE:
            return f"{node.id} {node.metadata.get('benchmark', '')}"
        if role == Qt.ItemDataRole.TextAlignmentRole and col > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            k = warmup_count(node)
            return (f"{node.id}\n{node.metadata.get('source', '')}"
                    + (f"\n{k} harness warm-up iterations (shaded)" if k else "")).strip()
        return None

    def _benchmark_data(self, b: Benchmark, col: int, role: int) -> Any:
        method = self.methods[col - len(FIXED)].name if col >= len(FIXED) else None
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return b.name
            if col == 1:
                return f"{len(b)} exec"
            if method is not None:
                got = self._rollups.get((b.name, method))
                return "" if got is None else got[0]
            return ""
        if role == SORT_ROLE:
            if col == 0:
                return b.name
            if col == 1:
                return float(max(len(s) for s in b.executions))
            if method is not None:
                got = self._rollups.get((b.name, method))
                return NONE_SORT if got is None else got[1]
            return -1.0 if col == 2 else NONE_SORT
        if role == FILTER_ROLE:
            return b.name
        if role == Qt.ItemDataRole.TextAlignmentRole and col > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and col == 0:
            unit = f", unit {b.unit}" if b.unit else ""
            way = {"lower": ", lower is better", "higher": ", higher is better"}.get(
                b.direction or "", "")
            return (f"{b.name}: {len(b)} process executions ({b.harness}{unit}{way})"
                    + "".join(f"\n\u26a0 {w}" for w in b.warnings))
        if role == Qt.ItemDataRole.FontRole and col == 0:
            from PySide6.QtGui import QFont
            f = QFont()
            f.setBold(True)
            return f
        return None

    def _display(self, s: Series, col: int, child: bool) -> str:
        lab = self.labels.get(s.id)
        if col == 0:
            if child:
                k = warmup_count(s)
                return f"exec {execution_index(s)}" + (f" (warm-up {k})" if k else "")
            return s.id
        if col == 1:
            return str(len(s))
        if col == 2:
            return "" if lab is None or lab.steady is None else ("steady" if lab.steady else "never")
        if col == 3:
            return "" if lab is None or lab.jagt_index is None else str(lab.jagt_index)
        got = self._cells.get((s.id, self.methods[col - len(FIXED)].name))
        return "" if got is None else got[0]

    def _sort(self, s: Series, col: int, child: bool) -> Any:
        lab = self.labels.get(s.id)
        if col == 0:
            return float(execution_index(s)) if child else s.id
        if col == 1:
            return float(len(s))
        if col == 2:
            return -1.0 if lab is None or lab.steady is None else float(lab.steady)
        if col == 3:
            return NONE_SORT if lab is None or lab.jagt_index is None else float(lab.jagt_index)
        got = self._cells.get((s.id, self.methods[col - len(FIXED)].name))
        return NONE_SORT if got is None else got[1]


class _Proxy(QSortFilterProxyModel):
    """Sorts by ``SORT_ROLE`` (numbers and names never compared with each other)."""

    def lessThan(self, left: QModelIndex | QPersistentModelIndex,  # noqa: N802 (Qt override)
                 right: QModelIndex | QPersistentModelIndex) -> bool:
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        if isinstance(a, str) != isinstance(b, str):
            return isinstance(a, str) < isinstance(b, str)
        return bool(a < b)


ROLLUP_WIDTH_TEXT = "8/8 steady, med 100"
EXPAND_BELOW = 400  # rows: a smaller tree opens with every benchmark expanded


class DatasetPanel(QWidget):
    """Search box and tree; emits ``series_selected(series_id)`` for a series or execution row
    and ``benchmark_selected(name)`` for a multi-execution benchmark's row."""

    series_selected = Signal(str)
    benchmark_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = SeriesTableModel(self)
        self.proxy = _Proxy(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterKeyColumn(0)
        self.proxy.setFilterRole(FILTER_ROLE)
        self.proxy.setRecursiveFilteringEnabled(True)  # a matching execution keeps its benchmark
        self.proxy.setAutoAcceptChildRows(True)  # a matching benchmark keeps its executions
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search benchmarks and series…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._on_search_text_changed)
        self.table = QTreeView(self)
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setUniformRowHeights(True)  # a long tree is laid out without measuring rows
        self.table.setIndentation(14)
        self.table.setAlternatingRowColors(True)
        self.table.setRootIsDecorated(True)
        self.table.header().setStretchLastSection(False)
        self.model.modelReset.connect(self._on_model_reset)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_changed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.search)
        lay.addWidget(self.table)

    def _on_model_reset(self) -> None:
        if len(self.model.series) + len(self.model.benchmarks) < EXPAND_BELOW:
            self.table.expandAll()
        for col in range(self.model.columnCount()):
            if not self.table.isColumnHidden(col):
                self.table.resizeColumnToContents(col)
        if self.model._bench_row:  # room for a roll-up that comes later ("2/3 steady, med 25")
            need = self.table.fontMetrics().horizontalAdvance(ROLLUP_WIDTH_TEXT) + 12
            for col in range(len(FIXED), self.model.columnCount()):
                if self.table.columnWidth(col) < need:
                    self.table.setColumnWidth(col, need)

    def _on_search_text_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        if text:
            self.table.expandAll()

    # ------------------------------------------------------------------ what is selected
    def current_node(self) -> Series | Benchmark | None:
        return self.model.node(self.proxy.mapToSource(self.table.currentIndex()))

    def current_id(self) -> str | None:
        node = self.current_node()
        return node.id if isinstance(node, Series) else None

    def current_benchmark(self) -> str | None:
        node = self.current_node()
        return node.name if isinstance(node, Benchmark) else None

    def _show(self, source: QModelIndex) -> bool:
        idx = self.proxy.mapFromSource(source)
        if not idx.isValid():  # filtered out: clear the filter so it can be shown
            self.search.clear()
            idx = self.proxy.mapFromSource(source)
        if not idx.isValid():
            return False
        if idx.parent().isValid():
            self.table.expand(idx.parent())
        self.table.setCurrentIndex(idx)
        self.table.scrollTo(idx)
        return True

    def select(self, series_id: str) -> bool:
        src = self.model.index_of(series_id)
        return src.isValid() and self._show(src)

    def select_benchmark(self, name: str) -> bool:
        src = self.model.benchmark_index(name)
        return src.isValid() and self._show(src)

    # ------------------------------------------------------------------ stepping
    def _visible_rows(self) -> list[QModelIndex]:
        """Visible rows (proxy indices) top to bottom, children after their benchmark."""
        out: list[QModelIndex] = []
        for r in range(self.proxy.rowCount()):
            top = self.proxy.index(r, 0)
            out.append(top)
            for c in range(self.proxy.rowCount(top)):
                out.append(self.proxy.index(c, 0, top))
        return out

    def step(self, delta: int) -> bool:
        """Select the next (+1) or previous (-1) series: a single-execution benchmark's row or an
        execution, in the order shown (a benchmark's own row is passed over)."""
        rows = self._visible_rows()
        leaves = [i for i in rows if self.proxy.rowCount(i) == 0]
        if not leaves:
            return False
        cur = self.table.currentIndex().siblingAtColumn(0)
        if not cur.isValid():
            self.table.setCurrentIndex(leaves[0])
            return True
        pos = next((k for k, i in enumerate(rows) if i == cur), None)
        if pos is None:
            return False
        seq = rows[pos + 1:] if delta > 0 else rows[:pos][::-1]
        nxt = next((i for i in seq if self.proxy.rowCount(i) == 0), None)
        if nxt is None:
            return False
        if nxt.parent().isValid():
            self.table.expand(nxt.parent())
        self.table.setCurrentIndex(nxt)
        self.table.scrollTo(nxt)
        return True

    def step_benchmark(self, delta: int) -> bool:
        """Select the next (+1) or previous (-1) benchmark row (top level)."""
        n = self.proxy.rowCount()
        if n == 0:
            return False
        cur = self.table.currentIndex().siblingAtColumn(0)
        if not cur.isValid():
            self.table.setCurrentIndex(self.proxy.index(0, 0))
            return True
        top = cur.parent() if cur.parent().isValid() else cur
        if cur.parent().isValid() and delta < 0:
            row = top.row()  # from an execution, "previous" is its own benchmark first
        else:
            row = min(max(top.row() + delta, 0), n - 1)
        idx = self.proxy.index(row, 0)
        if idx == cur:
            return False
        self.table.setCurrentIndex(idx)
        self.table.scrollTo(idx)
        return True

    def _on_table_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        node = self.model.node(self.proxy.mapToSource(current))
        if isinstance(node, Series):
            self.series_selected.emit(node.id)
        elif isinstance(node, Benchmark):
            self.benchmark_selected.emit(node.name)

