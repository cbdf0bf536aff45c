"""The column-mapping dialog: which columns of a CSV/TSV hold benchmark, execution, iteration,
value, unit, time and warm-up (:mod:`segview.core.io.columns` does all the reading).

It shows the table's first rows, one combo box per role filled with the header's columns (the
guessed mapping preselected), the layout (long: one value column; wide: every value column a
benchmark; rows: every row an execution), an optional fixed unit, and a live preview of what
would load (benchmarks x executions x iterations, or the error naming line and column). OK is
enabled only when the mapping loads; :meth:`ColumnMappingDialog.mapping` gives it. The explorer remembers it for the
file's folder (:func:`segview.core.io.columns.remember_mapping`) and opens the file with it.
"""
from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout,
                               QLabel, QLineEdit, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from ..core.errors import DataFormatError, ParameterError, SegviewWarning
from ..core.io import columns as cols

NONE = "(none)"
ALL = "* (every other column)"
PREVIEW_ROWS = 20
#: rows the live preview reads at most (a huge table is previewed on its first rows, and says so)
PREVIEW_LIMIT = 50_000


class ColumnMappingDialog(QDialog):
    """Choose a :class:`~segview.core.io.columns.ColumnMapping` for one table, with a preview.

    Signals:
        previewed(str): the preview line after every change (what would load, or the error).
    """

    previewed = Signal(str)

    def __init__(self, path: str | Path, mapping: cols.ColumnMapping | None = None,
                 reason: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = Path(path)
        self.setWindowTitle(f"Import table with column mapping: {self.path.name}")
        self._result: list | str = "not previewed"
        try:
            self.table = cols.read_table(self.path)
            self.read_error = None
        except DataFormatError as err:
            self.table = None
            self.read_error = str(err)
        header = self.table.header if self.table else []
        self._preview_table = self.table
        if self.table is not None and len(self.table.rows) > PREVIEW_LIMIT:
            self._preview_table = cols.Table(self.table.path, self.table.header,
                                             self.table.rows[:PREVIEW_LIMIT], self.table.delimiter)

        top = QVBoxLayout(self)
        intro = QLabel(f"<b>{self.path}</b>" + (f"<br>The usual CSV reader says: {reason}"
                                                  if reason else ""))
        intro.setWordWrap(True)
        top.addWidget(intro)

        self.grid = QTableWidget(0, len(header), self)
        self.grid.setHorizontalHeaderLabels(header)
        rows = [r for _, r in self.table.rows[:PREVIEW_ROWS]] if self.table else []
        self.grid.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, cell in enumerate(row[: len(header)]):
                self.grid.setItem(i, j, QTableWidgetItem(cell))
        self.grid.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.grid.setMinimumHeight(220)
        top.addWidget(self.grid)

        form = QFormLayout()
        self.layout_box = QComboBox(self)
        self.layout_box.addItems(list(cols.LAYOUTS))
        self.layout_box.setToolTip("long: one value column, a row per iteration; wide: every "
                                   "value column is a benchmark of its own; rows: every row is "
                                   "one execution, its value columns the iterations")
        form.addRow("Layout", self.layout_box)
        self.combos: dict[str, QComboBox] = {}
        for role, label in cols.ROLES:
            box = QComboBox(self)
            if role == "value":
                box.addItem(ALL, "*")
            else:
                box.addItem(NONE, None)
            for h in header:
                box.addItem(h, h)
            self.combos[role] = box
            form.addRow(label, box)
        self.unit_edit = QLineEdit(self)
        self.unit_edit.setPlaceholderText("e.g. ns, ms, ops/s (when no column holds the unit)")
        form.addRow("Fixed unit", self.unit_edit)
        top.addLayout(form)

        self.preview_label = QLabel(self)
        self.preview_label.setWordWrap(True)
        top.addWidget(self.preview_label)
        row = QHBoxLayout()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        row.addStretch(1)
        row.addWidget(self.buttons)
        top.addLayout(row)

        if mapping is not None and not cols.fits(mapping, header):
            mapping = None  # remembered for the folder, but this table has other columns
        guess = mapping or (cols.guess_from_table(self.table) if self.table else None)
        self.set_mapping(guess)
        for box in (*self.combos.values(), self.layout_box):
            box.currentIndexChanged.connect(self._update)
        self.unit_edit.textChanged.connect(self._update)
        self._update()
        self.resize(760, 720)

    # ------------------------------------------------------------------ mapping <-> widgets
    def set_mapping(self, mapping: cols.ColumnMapping | None) -> None:
        """Show ``mapping`` in the widgets (a column the header lacks shows as none)."""
        blockers = []
        for w in (*self.combos.values(), self.layout_box, self.unit_edit):
            w.blockSignals(True)
            blockers.append(w)
        try:
            m = mapping
            self.layout_box.setCurrentText(m.layout if m else "long")
            for role, box in self.combos.items():
                want = getattr(m, role) if m else None
                if role == "value" and want is not None and "," in want:
                    want = want.split(",")[0]  # several value columns: the first is shown
                k = box.findData(want) if want is not None else 0
                box.setCurrentIndex(k if k >= 0 else (0 if role != "value" else
                                                      min(1, box.count() - 1)))
            self.unit_edit.setText((m.unit_value or "") if m else "")
        finally:
            for w in blockers:
                w.blockSignals(False)
        self._update()

    def current_mapping(self) -> cols.ColumnMapping | str:
        """The mapping the widgets describe, or the reason it is not one."""
        roles = {role: box.currentData() for role, box in self.combos.items()}
        layout = self.layout_box.currentText()
        value = roles.pop("value")
        if value is None:
            return "choose a value column"
        if value == "*" and layout == "long":
            return "every other column as values needs the wide layout"
        unit = self.unit_edit.text().strip() or None
        try:
            m = cols.ColumnMapping(value=value, layout=layout, unit_value=unit,
                                   **{k: v for k, v in roles.items()})
        except ParameterError as err:
            return str(err)
        if self.table is not None:
            m = replace(m, delimiter=self.table.delimiter)
        return m

    def mapping(self) -> cols.ColumnMapping | None:
        """The chosen mapping (None when the widgets do not describe one that loads)."""
        m = self.current_mapping()
        return m if isinstance(m, cols.ColumnMapping) and not isinstance(self._result, str) \
            else None

    # ------------------------------------------------------------------ preview
    @Slot()
    def _update(self) -> None:
        if self.read_error:
            self._result = self.read_error
        else:
            m = self.current_mapping()
            if isinstance(m, str):
                self._result = m
            else:
                try:
                    with warnings.catch_warnings():  # said in the preview line (load_warnings)
                        warnings.simplefilter("ignore", SegviewWarning)
                        self._result = cols.read_mapped(self.path, m, self._preview_table)
                except (DataFormatError, ParameterError) as err:
                    self._result = str(err)
        text = cols.summary(self._result)
        ok = not isinstance(self._result, str)
        if ok and self._preview_table is not self.table:
            text += f" (preview of the first {PREVIEW_LIMIT} rows of {len(self.table.rows)})"
        self.preview_label.setText(("Would load: " if ok else "Cannot load: ") + text)
        self.preview_label.setStyleSheet("" if ok else "color: #b00020;")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)
        self.previewed.emit(self.preview_label.text())
