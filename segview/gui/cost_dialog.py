"""One question before a batch of long runs: every method whose pre-run estimate
(:mod:`segview.core.limits`) says minutes or gigabytes, with its estimate, in one dialog.

Opening a big file (or a folder of big series) starts every ticked method at once; asking method
by method stacked one modal prompt per method. :func:`ask` asks once for the batch: **Run all**,
**Skip slow ones** (the others run) or **Cancel** (nothing of the batch runs).
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFormLayout, QLabel, QPushButton,
                               QScrollArea, QVBoxLayout, QWidget)

RUN_ALL, SKIP_SLOW, CANCEL = "run all", "skip slow", "cancel"


class CostDialog(QDialog):
    """The methods over budget (``rows``: method label, estimate sentence) on ``n`` samples;
    :attr:`choice` is :data:`RUN_ALL`, :data:`SKIP_SLOW` or :data:`CANCEL` once closed."""

    def __init__(self, rows: Sequence[tuple[str, str]], n: int, parent: QWidget | None = None
                 ) -> None:
        super().__init__(parent)
        k = len(rows)
        self.setWindowTitle(f"{k} long run{'' if k == 1 else 's'}")
        self.choice = CANCEL
        lay = QVBoxLayout(self)
        head = QLabel(f"{'This method' if k == 1 else f'These {k} methods'} would take minutes "
                      f"or gigabytes on {n:,} samples:", self)
        head.setWordWrap(True)
        lay.addWidget(head)
        listing = QWidget(self)
        form = QFormLayout(listing)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.rows: list[tuple[QLabel, QLabel]] = []
        for label, note in rows:  # whole sentences, wrapped: nothing elided
            name = QLabel(f"<b>{escape(label)}</b>", listing)
            text = QLabel(note, listing)
            text.setWordWrap(True)
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            form.addRow(name, text)
            self.rows.append((name, text))
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(listing)
        lay.addWidget(scroll)
        box = QDialogButtonBox(self)
        self.run_all = QPushButton("&Run all", self)
        self.skip_slow = QPushButton("&Skip slow ones", self)
        self.cancel = QPushButton("Cancel", self)
        self.run_all.setToolTip("run every method, these as well")
        self.skip_slow.setToolTip("run the other methods now; these wait until their "
                                  "parameters change")
        self.cancel.setToolTip("run nothing now (asked again next time)")
        box.addButton(self.run_all, QDialogButtonBox.ButtonRole.AcceptRole)
        box.addButton(self.skip_slow, QDialogButtonBox.ButtonRole.AcceptRole)
        box.addButton(self.cancel, QDialogButtonBox.ButtonRole.RejectRole)
        self.skip_slow.setDefault(True)  # Enter never starts hours of work
        self.run_all.clicked.connect(lambda: self._choose(RUN_ALL))
        self.skip_slow.clicked.connect(lambda: self._choose(SKIP_SLOW))
        self.cancel.clicked.connect(self.reject)  # Esc and the close button too
        lay.addWidget(box)
        self.resize(760, min(560, 130 + 46 * k))

    def _choose(self, choice: str) -> None:
        self.choice = choice
        self.accept()

    def reject(self) -> None:
        self.choice = CANCEL
        super().reject()


def ask(parent: QWidget | None, rows: Sequence[tuple[str, str]], n: int) -> str:
    """Show :class:`CostDialog` modally; the user's choice."""
    dialog = CostDialog(rows, n, parent)
    dialog.setWindowModality(Qt.WindowModality.ApplicationModal)
    dialog.exec()
    choice = dialog.choice
    dialog.deleteLater()
    return choice
