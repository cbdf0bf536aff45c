"""Finding and selecting QListWidget items by the value they carry (``Qt.UserRole``)."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem


def item_with_data(widget: QListWidget, value: Any) -> QListWidgetItem | None:
    """The first item whose ``UserRole`` data equals ``value``, or None."""
    for i in range(widget.count()):
        item = widget.item(i)
        if item.data(Qt.ItemDataRole.UserRole) == value:
            return item
    return None


def select_quietly(widget: QListWidget, value: Any) -> QListWidgetItem | None:
    """Make the item carrying ``value`` current without emitting the list's signals."""
    item = item_with_data(widget, value)
    if item is not None:
        with QSignalBlocker(widget):
            widget.setCurrentItem(item)
    return item
