"""Plot titles that never widen their plot: the text is elided to the plot's width.

pyqtgraph's title (a ``LabelItem``) sets its minimum width to the width of its text, so a long
evaluation summary ("s0061: truth 2113 · kbkssd 2090, e=+23 · ...") made the whole plot stack wider
than its view, pushing the end of the series under the right-hand docks. An
:class:`ElidedTitle` has no minimum width; it shows as much of the text as fits, with "…", and the
whole text as its tooltip. :func:`install` puts one in a ``PlotItem``'s title place.
"""
from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import QSizeF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

MARGIN = 8.0  # px left free beside the text


class ElidedTitle(pg.LabelItem):
    """A ``LabelItem`` whose text is elided to its width and whose minimum width is 0."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self.full_text = ""
        self._elided_for = -1.0
        self._busy = False
        super().__init__(*args, **kwargs)

    def setText(self, text, **args) -> None:  # type: ignore[no-untyped-def]  # noqa: N802
        self.full_text = str(text)
        self.opts.update(args)
        self.setToolTip(self.full_text if self.full_text.strip() else "")
        self._render()

    def shown_text(self) -> str:
        """The text as shown (elided)."""
        return getattr(self, "_shown", "")

    def _font(self) -> QFont:
        font = QFont(self.item.font())
        size = str(self.opts.get("size", ""))
        if size.endswith("pt"):
            font.setPointSizeF(float(size[:-2]))
        elif size.endswith("px"):
            font.setPixelSize(int(float(size[:-2])))
        return font

    def _render(self) -> None:
        width = float(self.width())
        room = max(0.0, width - MARGIN)
        text = self.full_text
        if width > 0:
            text = QFontMetricsF(self._font()).elidedText(text, Qt.TextElideMode.ElideRight, room)
        self._shown = text
        self._elided_for = width
        self._busy = True
        try:
            super().setText(html.escape(text))
        finally:
            self._busy = False

    def resizeEvent(self, ev) -> None:  # type: ignore[no-untyped-def]  # noqa: N802
        super().resizeEvent(ev)
        if not self._busy and abs(float(self.width()) - self._elided_for) > 0.5:
            self._render()

    def updateMin(self) -> None:  # noqa: N802 (pyqtgraph's name)
        bounds = self.itemRect()
        self.setMinimumWidth(0)
        self.setMinimumHeight(bounds.height())
        self._sizeHint = {
            Qt.SizeHint.MinimumSize: (0, bounds.height()),
            Qt.SizeHint.PreferredSize: (0, bounds.height()),
            Qt.SizeHint.MaximumSize: (-1, -1),
            Qt.SizeHint.MinimumDescent: (0, 0),
        }
        self.updateGeometry()

    def sizeHint(self, hint, constraint) -> QSizeF:  # type: ignore[no-untyped-def]  # noqa: N802
        if hint not in self._sizeHint:
            return QSizeF(0, 0)
        return QSizeF(*self._sizeHint[hint])


def install(plot: pg.PlotItem) -> ElidedTitle:
    """Replace ``plot``'s title label by an :class:`ElidedTitle` (hidden, like the original)."""
    old = plot.titleLabel
    plot.layout.removeItem(old)
    if old.scene() is not None:
        old.scene().removeItem(old)
    old.setParentItem(None)
    title = ElidedTitle("", size="11pt", parent=plot)
    plot.titleLabel = title
    plot.layout.addItem(title, 0, 1)
    plot.setTitle(None)
    return title
