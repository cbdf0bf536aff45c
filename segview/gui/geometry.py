"""Window geometry that fits the screen: a default size from the available geometry, and restored
geometry clamped to it (a layout saved on a large monitor must not open past a laptop's edge)."""
from __future__ import annotations

from PySide6.QtCore import QRect

PREFERRED = (1400, 860)  # the size the layout was designed for, when the screen has room
FRACTION = 0.92  # of the available width and height on smaller screens
MARGIN = 8


def default_geometry(available: QRect | None, preferred: tuple[int, int] = PREFERRED) -> QRect:
    """A rectangle of at most ``preferred`` size, inside and centred on ``available``."""
    if available is None or available.isEmpty():
        return QRect(0, 0, *preferred)
    w = min(preferred[0], int(available.width() * FRACTION))
    h = min(preferred[1], int(available.height() * FRACTION))
    x = available.x() + (available.width() - w) // 2
    y = available.y() + (available.height() - h) // 2
    return QRect(x, y, w, h)


def clamp_to_screen(rect: QRect, available: QRect | None) -> QRect:
    """``rect`` shrunk to fit ``available`` and moved fully onto it."""
    if available is None or available.isEmpty():
        return QRect(rect)
    w = min(rect.width(), available.width() - MARGIN)
    h = min(rect.height(), available.height() - MARGIN)
    x = min(max(rect.x(), available.x()), available.x() + available.width() - w)
    y = min(max(rect.y(), available.y()), available.y() + available.height() - h)
    return QRect(x, y, w, h)


def fit_window(window: object, preferred: tuple[int, int]) -> None:
    """Give a top-level window its default geometry on the screen it will appear on."""
    from PySide6.QtGui import QGuiApplication

    screen = window.screen() or QGuiApplication.primaryScreen()
    window.setGeometry(default_geometry(screen.availableGeometry() if screen else None, preferred))
