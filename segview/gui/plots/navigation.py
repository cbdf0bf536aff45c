"""Mouse navigation shared by the explorer and the annotator (napari / pyqtgraph habits).

* Wheel zooms x around the pointer; y keeps fitting the data in view (auto-range on the visible
  samples). With Ctrl (or Shift) held, the wheel zooms y instead and y stops auto-fitting until
  "View all".
* Left drag pans x; with Ctrl (or Shift) it pans y.
* Right click opens a context menu (View all, Fit y, Export plot, ... given by the owner).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QMenu

Y_MODIFIERS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
MenuItems = Sequence[tuple[str, Callable[[], None]] | None]  # None: a separator


def _wants_y(ev: object) -> bool:
    try:
        return bool(ev.modifiers() & Y_MODIFIERS)
    except AttributeError:
        return False


class XZoomViewBox(pg.ViewBox):
    """A ViewBox whose wheel and drag act on x; a modifier moves them to y."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.menu_items: Callable[[], MenuItems] | None = None
        self.context_menu: QMenu | None = None
        self.setMenuEnabled(False)

    def _with_mask(self, y: bool, call: Callable[[], None]) -> None:
        saved = self.state["mouseEnabled"][:]
        self.state["mouseEnabled"] = [saved[0] and not y, saved[1] and y]
        try:
            call()
        finally:
            self.state["mouseEnabled"] = saved

    def wheelEvent(self, ev: object, axis: int | None = None) -> None:  # noqa: N802 (Qt override)
        y = _wants_y(ev)
        if y:
            self.enableAutoRange(y=False)
        self._with_mask(y, lambda: super(XZoomViewBox, self).wheelEvent(ev, axis))

    def mouseDragEvent(self, ev: object, axis: int | None = None) -> None:  # noqa: N802
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        y = _wants_y(ev)
        if y:
            self.enableAutoRange(y=False)
        self._with_mask(y, lambda: super(XZoomViewBox, self).mouseDragEvent(ev, axis))

    def mouseClickEvent(self, ev: object) -> None:  # noqa: N802
        if ev.button() == Qt.MouseButton.RightButton and self.menu_items is not None:
            items = self.menu_items()
            if items:
                ev.accept()
                self.show_menu(items)
                return
        super().mouseClickEvent(ev)

    def show_menu(self, items: MenuItems, at: object = None) -> QMenu:
        menu = QMenu()
        for entry in items:
            if entry is None:
                menu.addSeparator()
            else:
                text, slot = entry
                menu.addAction(text).triggered.connect(lambda _=False, s=slot: s())
        self.context_menu = menu  # kept for tests, and alive while shown
        menu.popup(at if at is not None else QCursor.pos())
        return menu


def fit_y(plot: pg.PlotItem) -> None:
    """Let y follow the samples in view again (after a Ctrl+wheel zoom in y)."""
    plot.setAutoVisible(y=True)
    plot.enableAutoRange(y=True)
