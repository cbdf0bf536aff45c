"""The input side of the evaluation window: truth, methods, scoring, run/cancel and export buttons.
Widgets only; the window connects them and owns the logic.

The inputs (truth, methods, scoring) scroll when the window is short (a 1280x720 screen at 150 %
is 480 logical pixels high); Evaluate, Cancel, the progress, the export buttons and the message
stay in view below them."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QFormLayout, QFrame, QGroupBox,
                               QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QProgressBar,
                               QPushButton, QScrollArea, QVBoxLayout, QWidget)

NAME_ROLE = Qt.ItemDataRole.UserRole


def _swatch(color: str) -> QIcon:
    pix = QPixmap(14, 14)
    pix.fill(QColor(color))
    return QIcon(pix)


class _MethodList(QListWidget):
    """The methods list: it asks for its minimum height and takes more only where there is room
    (a list's default wish of ~190 pixels would make the inputs scroll on a short window)."""

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(super().sizeHint().width(), self.minimumHeight())


class InputsPanel(QWidget):
    """Truth group, methods list with add/remove, scoring, Evaluate/Cancel, export."""

    def __init__(self, onset_specs: Sequence[Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        inputs = QWidget(self)
        inputs.setMinimumWidth(330)
        lay = QVBoxLayout(inputs)
        lay.setContentsMargins(4, 4, 4, 4)

        truth = QGroupBox("Truth", self)
        tl = QVBoxLayout(truth)
        self.truth_label = QLabel("none chosen", truth)
        self.truth_label.setWordWrap(True)
        self.labels_truth_button = QPushButton("Labels of loaded series", truth)
        self.labels_truth_button.setToolTip("steady, jagt_index and jagt_clustered of the labels.csv "
                                            "found beside the series opened in the explorer")
        self.truth_file_button = QPushButton("Truth file…", truth)
        self.truth_file_button.setToolTip("CSV with series_id,steady,reference_index,clustered "
                                          "(or a labels.csv)")
        row = QHBoxLayout()
        row.addWidget(self.labels_truth_button)
        row.addWidget(self.truth_file_button)
        tl.addWidget(self.truth_label)
        tl.addLayout(row)
        lay.addWidget(truth)

        methods = QGroupBox("Methods (ticked: evaluated, in this order)", self)
        ml = QVBoxLayout(methods)
        self.method_list = _MethodList(methods)
        self.method_list.setMinimumHeight(90)
        self.method_list.setMaximumHeight(180)
        self.method_list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.method_list.setToolTip("Tick the methods to evaluate; drag to change their order")
        ml.addWidget(self.method_list)
        self.add_file_button = QPushButton("Add prediction CSV…", methods)
        self.add_file_button.setToolTip("CSV written by segview detect (or the explorer's export); "
                                        "every onset method in it is added")
        self.remove_button = QPushButton("Remove", methods)
        row = QHBoxLayout()
        row.addWidget(self.add_file_button)
        row.addWidget(self.remove_button)
        ml.addLayout(row)
        self.run_combo = QComboBox(methods)
        for spec in onset_specs:
            self.run_combo.addItem(spec.label, spec.name)
        self.add_run_button = QPushButton("Run now", methods)
        self.add_run_button.setToolTip("Add this detector and evaluate at once: it runs on the "
                                       "loaded series with the explorer's current parameters "
                                       "(cached on disk), with progress below")
        row = QHBoxLayout()
        row.addWidget(self.run_combo, 1)
        row.addWidget(self.add_run_button)
        ml.addLayout(row)
        lay.addWidget(methods, 1)  # where there is room, the list grows (up to its maximum)

        opts = QFormLayout()
        self.scoring_combo = QComboBox(self)
        self.scoring_combo.addItem("truth and all methods steady", "joint")
        self.scoring_combo.addItem("each method's own steady series", "own")
        self.scoring_combo.setToolTip("series whose onset errors are scored: where the truth and every "
                                      "method say steady (the paper's convention, paired tests), or "
                                      "each method's own steady series")
        opts.addRow("Errors over", self.scoring_combo)
        self.pair_combo = QComboBox(self)
        opts.addRow("Paired plot", self.pair_combo)
        lay.addLayout(opts)
        lay.addStretch(1)
        self.inputs_area = QScrollArea(self)
        self.inputs_area.setWidget(inputs)
        self.inputs_area.setWidgetResizable(True)
        self.inputs_area.setFrameShape(QFrame.Shape.NoFrame)
        self.inputs_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.inputs_area.setMinimumWidth(inputs.minimumSizeHint().width()
                                         + self.inputs_area.verticalScrollBar().sizeHint().width())
        outer.addWidget(self.inputs_area, 1)
        actions = QWidget(self)
        lay = QVBoxLayout(actions)
        lay.setContentsMargins(4, 0, 4, 4)

        self.evaluate_button = QPushButton("Evaluate", self)
        self.evaluate_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(self.evaluate_button, 1)
        row.addWidget(self.cancel_button)
        lay.addLayout(row)
        self.progress = QProgressBar(self)
        self.progress.setTextVisible(True)
        self.progress.hide()
        lay.addWidget(self.progress)
        self.export_button = QPushButton("Export report…", self)
        self.export_button.setToolTip("text, JSON or CSV (as segview evaluate --format)")
        self.figures_button = QPushButton("Save figures…", self)
        self.figures_button.setToolTip("PNG and SVG figures, as segview evaluate --plots")
        row = QHBoxLayout()
        row.addWidget(self.export_button)
        row.addWidget(self.figures_button)
        lay.addLayout(row)
        self.message = QLabel("", self)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setStyleSheet("color: #8a2b0c")
        lay.addWidget(self.message)
        outer.addWidget(actions)

    # ------------------------------------------------------------------ methods list
    def add_item(self, name: str, text: str, color: str, checked: bool) -> None:
        item = QListWidgetItem(_swatch(color), text)
        item.setData(NAME_ROLE, name)
        item.setToolTip(text)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.method_list.addItem(item)

    def remove_item(self, name: str) -> None:
        for i in range(self.method_list.count()):
            if self.method_list.item(i).data(NAME_ROLE) == name:
                self.method_list.takeItem(i)
                return

    def item(self, name: str) -> QListWidgetItem | None:
        for i in range(self.method_list.count()):
            it = self.method_list.item(i)
            if it.data(NAME_ROLE) == name:
                return it
        return None

    def move_to(self, name: str, row: int) -> None:
        """Move a method in the list (what a drag does)."""
        for i in range(self.method_list.count()):
            if self.method_list.item(i).data(NAME_ROLE) == name:
                self.method_list.insertItem(row, self.method_list.takeItem(i))
                return

    def set_checked(self, name: str, on: bool) -> None:
        it = self.item(name)
        if it is not None:
            it.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def checked_names(self) -> list[str]:
        out = []
        for i in range(self.method_list.count()):
            it = self.method_list.item(i)
            if it.checkState() == Qt.CheckState.Checked:
                out.append(str(it.data(NAME_ROLE)))
        return out

    # PySide6 6.12 on Python 3.11 drops a reference to None whenever a Qt call returns None (an
    # empty currentData(), currentItem() without a current item); enough of them crash the
    # interpreter at exit ("none_dealloc"). So the calls below never ask Qt for a missing value.
    def current_name(self) -> str | None:
        row = self.method_list.currentRow()
        if row < 0 or row >= self.method_list.count():
            return None
        return str(self.method_list.item(row).data(NAME_ROLE))

    # ------------------------------------------------------------------ options and state
    def scoring(self) -> str:
        return str(self.scoring_combo.currentData())

    def set_pairs(self, methods: Sequence[str]) -> None:
        keep = self.pair()
        self.pair_combo.blockSignals(True)
        self.pair_combo.clear()
        for i, a in enumerate(methods):
            for b in methods[i + 1:]:
                self.pair_combo.addItem(f"{a} vs {b}", (a, b))
        idx = self.pair_combo.findData(keep) if keep is not None else -1
        self.pair_combo.setCurrentIndex(max(idx, 0))
        self.pair_combo.blockSignals(False)

    def pair(self) -> tuple[str, str] | None:
        if self.pair_combo.currentIndex() < 0:
            return None
        return tuple(self.pair_combo.currentData())  # type: ignore[return-value]  # the combo's data are the (method, method) pairs added in set_pairs

    def run_choice(self) -> str | None:
        if self.run_combo.currentIndex() < 0:
            return None
        return str(self.run_combo.currentData())

    def set_running(self, running: bool, with_progress: bool) -> None:
        self.evaluate_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if running and with_progress:
            self.progress.setRange(0, 0)
            self.progress.show()
        elif not running:
            self.progress.hide()
