"""Exports: detections as CSV (the columns of ``segview detect``) and the plot as PNG/SVG."""
from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core import atomic
from ..core.io.detections import CSV_COLUMNS, format_csv  # noqa: F401 (re-exported)
from ..core.io.detections import benchmark_columns, detection_row as _row
from ..core.registry import DetectorSpec
from ..core.result import DetectionResult


def detection_row(series_id: str, spec: DetectorSpec, res: DetectionResult,
                  series: Any = None) -> dict[str, Any]:
    """One row of the ``segview detect`` table for a result shown in the explorer (``series``
    gives its benchmark and execution columns)."""
    return _row(series_id, spec.name, spec.produces, res.steady_start, res.change_points,
                res.runtime_ms, **(benchmark_columns(series) if series is not None else {}),
                strengths=res.strengths, strength_label=res.strength_label)


def write_csv(path: str | Path, rows: Iterable[dict[str, Any]]) -> int:
    """Write rows with :data:`CSV_COLUMNS`; returns the number of rows."""
    rows = list(rows)
    atomic.write_text(path, format_csv(rows))
    return len(rows)


def export_plot(item: Any, path: str | Path, width: int | None = None) -> None:
    """Export a pyqtgraph item (usually the central GraphicsLayout) as SVG or a raster image,
    whole or not at all (:mod:`segview.core.atomic`).

    Raises:
        OutputError: the image could not be written (named by ``path``).
    """
    import pyqtgraph.exporters as exporters

    with atomic.atomic_path(path) as tmp:
        name = str(tmp)
        if name.lower().endswith(".svg"):
            try:
                exporters.SVGExporter(item).export(name)
            except ValueError:  # pyqtgraph 0.14's path rewriting fails on Qt 6.12's SVG output
                _svg_with_qt(item, name)
        else:
            exp = exporters.ImageExporter(item)
            if width:
                exp.parameters()["width"] = int(width)
            exp.export(name)
        if os.path.getsize(tmp) == 0:  # Qt's writers report failure by returning False
            raise OSError(errno.EIO, "the image writer wrote nothing")


def _svg_with_qt(item: Any, path: str) -> None:
    """Render the item's scene area with Qt's own SVG generator."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    rect = item.sceneBoundingRect()
    gen = QSvgGenerator()
    gen.setFileName(path)
    gen.setSize(rect.size().toSize())
    gen.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
    gen.setTitle("segview plot")
    painter = QPainter(gen)
    try:
        item.scene().render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
    finally:
        painter.end()
