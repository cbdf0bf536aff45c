"""The evaluation window on a 1280x720 screen at 150 % (853x480 logical pixels, issue 29): the
window fits, and every control is reachable and shown whole (scrolled to, where the screen is too
small), the four plots included (pytest-qt, offscreen)."""
from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, QRect  # noqa: E402
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QComboBox,  # noqa: E402
                               QScrollArea, QWidget)

from .test_evaluate_view import explorer, evaluation, run_evaluation  # noqa: E402,F401

LOGICAL = (853, 480)  # 1280x720 at QT_SCALE_FACTOR=1.5


def _area_of(widget: QWidget) -> QScrollArea | None:
    p = widget.parentWidget()
    while p is not None:
        if isinstance(p, QScrollArea):
            return p
        p = p.parentWidget()
    return None


def _shown_rect(widget: QWidget, top: QWidget) -> QRect:
    """The part of ``widget`` not clipped by an ancestor up to ``top`` (in ``top``'s coordinates)."""
    def in_top(w: QWidget) -> QRect:
        return QRect(w.mapTo(top, QPoint(0, 0)), w.size())

    shown = in_top(widget)
    w = widget.parentWidget()
    while w is not None:
        shown = shown.intersected(in_top(w) if w is not top else top.rect())
        if w is top:
            break
        w = w.parentWidget()
    return shown


def _reachable_whole(win: QWidget, control: QWidget) -> str | None:
    """None when the control can be shown whole (scrolling its scroll area to it), else why not."""
    hint = control.minimumSizeHint()
    if control.width() < min(hint.width(), 40) or control.height() < min(hint.height(), 16):
        return f"squeezed to {control.width()}x{control.height()} (needs {hint.width()}x{hint.height()})"
    area = _area_of(control)
    if area is not None:
        area.ensureWidgetVisible(control, 0, 0)
    shown = _shown_rect(control, win)
    viewport = area.viewport().size() if area is not None else win.size()
    need_w = min(control.width(), viewport.width())
    need_h = min(control.height(), viewport.height())
    if shown.width() < need_w or shown.height() < need_h:
        return f"clipped to {shown.width()}x{shown.height()} of {control.width()}x{control.height()}"
    return None


def test_minimum_size_fits_a_1280x720_screen_at_150_percent(qtbot, evaluation):  # noqa: F811
    ev = evaluation
    hint = ev.minimumSizeHint().expandedTo(ev.minimumSize())
    assert hint.width() <= LOGICAL[0] and hint.height() <= LOGICAL[1], hint


@pytest.mark.parametrize("size", [LOGICAL, (784, 441)])  # the whole screen; fit_window's 92 %
def test_every_control_is_reachable_at_1280x720_150_percent(qtbot, evaluation, size):  # noqa: F811
    ev = evaluation
    for column in ("cpssd_published", "kbkssd_reference"):  # two methods: every table and plot filled
        ev.panel.set_checked(column, True)
    run_evaluation(qtbot, ev)
    ev.resize(*size)
    qtbot.waitUntil(lambda: ev.size().width() == size[0] and ev.size().height() == size[1])
    controls = [c for c in ev.findChildren(QWidget)
                if isinstance(c, (QAbstractButton, QComboBox, QAbstractItemView))
                and c.isVisibleTo(ev) and c.window() is ev]
    controls.append(ev.plots)
    assert len(controls) >= 14
    problems = {(type(c).__name__, c.objectName() or getattr(c, "text", lambda: "")() or
                 c.toolTip()[:30]): why for c in controls
                if (why := _reachable_whole(ev, c)) is not None}
    assert problems == {}
    # the method tables show their rows, not a sliver of one
    assert ev.summary_view.viewport().height() >= 2 * 21
    for view in (ev.series_view, ev.tests_view):
        assert view.viewport().height() >= 3 * 21, view.viewport().height()
    # the four plots lie inside the plot widget (none cut off at its right edge) and are usable
    area = _area_of(ev.plots)
    if area is not None:
        area.ensureWidgetVisible(ev.plots, 0, 0)
    view_rect = ev.plots.viewport().rect()
    for item in (ev.plots.bars, ev.plots.hist, ev.plots.scatter, ev.plots.diff):
        r = ev.plots.mapFromScene(item.sceneBoundingRect()).boundingRect()
        assert view_rect.adjusted(-1, -1, 1, 1).contains(r), (item.titleLabel.text, r, view_rect)
        vb = item.getViewBox().sceneBoundingRect()
        assert vb.width() >= 100 and vb.height() >= 100, (item.titleLabel.text, vb)


def test_the_plots_reflow_to_the_window_width(qtbot, evaluation):  # noqa: F811
    ev = evaluation
    ev.resize(1600, 950)  # a large screen: the four plots in one row
    qtbot.waitUntil(lambda: ev.plots.columns == 4)
    assert ev.plots.ci.getItem(0, 3) is ev.plots.diff
    ev.resize(*LOGICAL)  # two by two, none cut off
    qtbot.waitUntil(lambda: ev.plots.columns == 2)
    assert ev.plots.ci.getItem(1, 1) is ev.plots.diff and ev.plots.ci.getItem(0, 3) is None
    ev.resize(1600, 950)
    qtbot.waitUntil(lambda: ev.plots.columns == 4)
    assert ev.plots.ci.getItem(1, 0) is None
