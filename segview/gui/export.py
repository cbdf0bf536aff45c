"""Exports: detections as CSV (the columns of ``segview detect``) and the plot as PNG/SVG."""
from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core.registry import DetectorSpec
from ..core.result import DetectionResult

CSV_COLUMNS = ("series_id", "method", "steady_index", "change_points", "runtime_ms")


def detection_row(series_id: str, spec: DetectorSpec, res: DetectionResult) -> dict[str, Any]:
    """One CSV row; ``steady_index`` is -1 for "never steady", blank for change-point detectors.

    Mirrors ``segview detect``'s CSV so files from both front ends compare line by line.
    """
    if spec.produces == "onset":
        steady: int | str = -1 if res.steady_start is None else int(res.steady_start)
    else:
        steady = "" if res.steady_start is None else int(res.steady_start)
    return {"series_id": series_id, "method": spec.name, "steady_index": steady,
            "change_points": ";".join(str(int(c)) for c in res.change_points),
            "runtime_ms": round(res.runtime_ms, 3)}


def write_csv(path: str | Path, rows: Iterable[dict[str, Any]]) -> int:
    """Write rows with :data:`CSV_COLUMNS`; returns the number of rows."""
    rows = list(rows)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


def export_plot(item: Any, path: str | Path, width: int | None = None) -> None:
    """Export a pyqtgraph item (usually the central GraphicsLayout) as SVG or a raster image."""
    import pyqtgraph.exporters as exporters

    path = str(path)
    if path.lower().endswith(".svg"):
        try:
            exporters.SVGExporter(item).export(path)
        except ValueError:  # pyqtgraph 0.14's path rewriting fails on Qt 6.12's SVG output
            _svg_with_qt(item, path)
        return
    exp = exporters.ImageExporter(item)
    if width:
        exp.parameters()["width"] = int(width)
    exp.export(path)


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
