"""File actions of the evaluation window: report export, figures, and the file dialogs that feed
the truth and prediction inputs (a mixin of :class:`~segview.gui.evaluate.view.EvaluationWindow`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog

from ...core.evaluation import report as rep
from ...core import atomic
from ...core.errors import OutputError

FORMATS = {"text": rep.format_text, "json": rep.format_json, "csv": rep.format_csv}


class EvaluationActions:
    """Needs ``report``, ``post``, ``panel``, ``entries``, ``colors`` and the add/set methods."""

    report: Any
    post: Any
    panel: Any
    entries: Any
    colors: Any
    set_truth_file: Any
    add_prediction_file: Any
    add_run: Any

    def _start_folder(self) -> str:
        """File dialogs start where the explorer's do (the user's last folder, else home)."""
        from ..settings import Settings

        settings = getattr(getattr(self, "explorer", None), "settings", None)
        return (settings if settings is not None else Settings()).last_folder()

    # ------------------------------------------------------------------ export
    def export_report(self, path: str | Path, fmt: str | None = None) -> bool:
        """Write the report as text, json or csv (by ``fmt`` or the file extension)."""
        if self.report is None:
            self.post("Nothing to export yet: evaluate first")
            return False
        path = Path(path)
        fmt = fmt or {".json": "json", ".csv": "csv"}.get(path.suffix.lower(), "text")
        try:
            atomic.write_text(path, FORMATS[fmt](self.report))
        except OutputError as err:
            self.post(f"Cannot write {path}: {err}")
            return False
        self.post(f"Report saved to {path}")
        return True

    def _on_export_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export evaluation report", self._start_folder(),
                                              "Text (*.txt);;JSON (*.json);;CSV (*.csv)")
        if path:
            self.export_report(path)

    def _on_figures_clicked(self) -> None:
        if self.report is None:
            self.post("Nothing to save yet: evaluate first")
            return
        folder = QFileDialog.getExistingDirectory(self, "Save figures (PNG and SVG) to",
                                                  self._start_folder())
        if folder:
            files = rep.write_plots(self.report, folder)
            self.post(f"{len(files)} figure files saved to {folder}")

    # ------------------------------------------------------------------ dialogs
    def _on_truth_file_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Truth table", self._start_folder(), "CSV (*.csv);;All files (*)")
        if path:
            self.set_truth_file(path)

    def _on_add_file_clicked(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Prediction CSVs (segview detect)",
                                                self._start_folder(),
                                                "CSV (*.csv);;All files (*)")
        for p in paths:
            self.add_prediction_file(p)

    def _on_add_run_clicked(self) -> None:
        """Run now: add the detector and start the evaluation (it no longer waits silently)."""
        name = self.panel.run_choice()
        if not name:
            return
        added = self.add_run(name)
        if added is None:
            return
        if not self.truth:
            self.post(f"Added {added}; choose a truth, then Evaluate runs it")
        elif self.is_running():
            self.post(f"Added {added}; it runs with the next Evaluate (one is running now)")
        elif self.evaluate():
            self.post(f"Running {added} on {len(self.series)} series, then evaluating…")

    def _on_remove_clicked(self) -> None:
        name = self.panel.current_name()
        if name is None:
            return
        self.entries = [e for e in self.entries if e.name != name]
        self.colors.pop(name, None)
        self.panel.remove_item(name)
