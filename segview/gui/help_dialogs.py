"""Help > Keyboard shortcuts (a table built from the window's menus, so it never goes stale) and
Help > About (version, what segview is, where the settings live)."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QMenu, QMenuBar,
                               QMessageBox, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)


def menu_shortcuts(bar: QMenuBar) -> list[tuple[str, str, str]]:
    """(menu, action, keys) for every action with a shortcut, in menu order."""
    rows: list[tuple[str, str, str]] = []

    def walk(menu: QMenu, path: str) -> None:
        for act in menu.actions():
            if act.menu() is not None:
                walk(act.menu(), f"{path} › {act.menu().title().replace('&', '')}")
                continue
            keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText)
                             for k in act.shortcuts() if not k.isEmpty())
            if keys and act.text():
                rows.append((path, act.text().replace("&", ""), keys))

    for act in bar.actions():
        if act.menu() is not None:
            walk(act.menu(), act.menu().title().replace("&", ""))
    return rows


def show_shortcuts(parent: QWidget, bar: QMenuBar,
                   extra: Sequence[tuple[str, str]] = ()) -> QDialog:
    """A non-modal dialog listing keys (from the menus) and mouse gestures (``extra``)."""
    rows = [(keys, f"{text}  ({menu})") for menu, text, keys in menu_shortcuts(bar)]
    rows += [(what, does) for what, does in extra]
    dlg = QDialog(parent)
    dlg.setWindowTitle("Keyboard shortcuts and mouse")
    lay = QVBoxLayout(dlg)
    table = QTableWidget(len(rows), 2, dlg)
    table.setHorizontalHeaderLabels(["Key or gesture", "Does"])
    for i, (k, d) in enumerate(rows):
        table.setItem(i, 0, QTableWidgetItem(k))
        table.setItem(i, 1, QTableWidgetItem(d))
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    lay.addWidget(table)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dlg)
    buttons.rejected.connect(dlg.close)
    lay.addWidget(buttons)
    screen = parent.screen().availableGeometry() if parent.screen() is not None else None
    w, h = 640, 560
    if screen is not None:
        w, h = min(w, screen.width() - 40), min(h, screen.height() - 60)
    dlg.resize(w, h)
    dlg.table = table
    dlg.show()
    return dlg


def about_text() -> str:
    from .. import __version__

    return (f"<h3>segview {__version__}</h3>"
            "<p>Steady-state and change-point detection for performance time series: the explorer, "
            "annotation sessions for judges, and evaluation against ground truth.</p>"
            "<p>Detectors: KB-KSSD, CP-SSD, Berry–Hellerstein, OP/PELT, binary segmentation, "
            "Extra-P nRSS, Auto-PARM (see <code>segview methods</code>).</p>")


def show_about(parent: QWidget) -> QMessageBox:
    box = QMessageBox(QMessageBox.Icon.Information, "About segview", about_text(),
                      QMessageBox.StandardButton.Ok, parent)
    box.open()
    return box
