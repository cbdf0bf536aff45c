"""The explorer's file actions (a mixin of :class:`~segview.gui.main_window.MainWindow`): opening
files and folders with the labels beside them, recent files, the file dialogs, and export of the
plot and of the detections as CSV."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QMenu, QSpinBox, QWidget)

from ..core.errors import OutputError, RecoverableError
from ..core.io import Dataset, load
from ..core.io.columns import TABLE_EXTENSIONS, remember_mapping, remembered_mapping
from ..core.io.labels_csv import LabelRow, read_labels
from .export import detection_row, export_plot, write_csv
from .loading import FILL_CHOICES, BackgroundLoader, in_gui_words, is_small


class ExportOptionsDialog(QDialog):
    """Size and legend of an exported plot (PNG width in pixels; SVG is resolution-free)."""

    def __init__(self, current_width: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export plot")
        form = QFormLayout(self)
        self.width = QSpinBox(self)
        self.width.setRange(200, 16000)
        self.width.setSingleStep(100)
        self.width.setSuffix(" px")
        self.width.setValue(max(200, 2 * current_width))  # 2x: sharp in print and on HiDPI
        self.width.setToolTip("PNG width in pixels (the height keeps the on-screen proportions); "
                              "e.g. 3000 px for a 10-inch figure at 300 dpi")
        form.addRow("PNG width:", self.width)
        self.legend = QCheckBox("legend (series, reference, every shown method)", self)
        self.legend.setChecked(True)
        form.addRow("", self.legend)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class ExplorerFiles:
    """Open / recent / export. Needs ``settings``, ``specs``, the ``model`` (and its read-only
    views ``enabled``, ``params``, ``series``, ``current``, ``results``), ``layout_item``, ``recent_menu``, ``post``, ``set_dataset`` and
    ``run_on_all`` of the window."""

    # ------------------------------------------------------------------ opening
    @property
    def fill_missing(self) -> str | None:
        """How missing values (TCPD ``null``) are filled when a file is opened: None (the file is
        named in Messages and not opened), ``"linear"`` or ``"previous"``; File > Missing values,
        or ``segview gui --fill-missing``."""
        return self.__dict__.get("_fill_missing")

    @fill_missing.setter
    def fill_missing(self, rule: str | None) -> None:
        self.__dict__["_fill_missing"] = rule
        for act in self.__dict__.get("fill_actions", {}).values():
            act.setChecked(act.data() == rule)

    def _build_missing_values_menu(self, menu: QMenu) -> QMenu:
        """File > Missing values: the gap-filling rule used by the next open."""
        sub = menu.addMenu("&Missing values (TCPD)")
        group = QActionGroup(self)
        self.__dict__["fill_actions"] = actions = {}
        for rule, text, tip in FILL_CHOICES:
            act = QAction(text, self)
            act.setCheckable(True)
            act.setData(rule)
            act.setStatusTip(tip)
            act.setChecked(rule == self.fill_missing)
            act.triggered.connect(lambda _on=False, r=rule: setattr(self, "fill_missing", r))
            group.addAction(act)
            sub.addAction(act)
            actions[rule] = act
        return sub

    def open_paths(self, paths: list[str], background: bool | None = None) -> bool:
        """Load files/folders (replacing the current dataset); False when nothing could be loaded.

        Large inputs (more than a few hundred files or megabytes, :func:`~.loading.is_small`) are
        read on a worker thread with progress and Cancel in the status bar: this returns True at
        once and the dataset is installed when ``self.loading.loaded`` fires (``loading.done``
        after any outcome). ``background`` forces either way.
        """
        paths = [str(p) for p in paths]
        if background is None:
            background = not is_small(paths)
        if background:
            self.loading.start(paths, fill_missing=self.fill_missing)
            self.post(f"Loading {', '.join(paths)} in the background (Esc cancels)")
            return True
        if self.loading.busy():
            self.loading.cancel(quiet=True)  # the newer request wins
        try:
            ds = load(paths, fill_missing=self.fill_missing)
        except RecoverableError as err:
            if self._offer_column_mapping(paths, str(err)):
                return True
            self.post(f"Cannot open: {in_gui_words(err)}")
            return False
        return self._install_dataset(paths, ds)

    def _offer_column_mapping(self, paths: list[str], reason: str) -> bool:
        """A single CSV/TSV the usual reader cannot read: ask which columns hold what."""
        if len(paths) != 1 or Path(paths[0]).suffix.lower() not in TABLE_EXTENSIONS \
                or not Path(paths[0]).is_file():
            return False
        self.import_table(paths[0], reason)
        return True

    def import_table(self, path: str, reason: str | None = None) -> bool:
        """The column-mapping dialog for ``path``; OK remembers the mapping for its folder and
        opens the file with it. False when cancelled or nothing loaded."""
        from .column_mapping import ColumnMappingDialog

        dialog = ColumnMappingDialog(path, remembered_mapping(path), reason, self)
        self.__dict__["_column_dialog"] = dialog  # tests reach the open dialog here
        if dialog.exec() != QDialog.DialogCode.Accepted or dialog.mapping() is None:
            self.post(f"Not opened: {path}" + (f" ({reason})" if reason else ""))
            return False
        mapping = dialog.mapping()
        try:
            remember_mapping(path, mapping)
            ds = load([path], columns=mapping)
        except (RecoverableError, OSError) as err:
            self.post(f"Cannot open: {err}")
            return False
        self.post(f"Column mapping {mapping.spec()} remembered for {Path(path).parent}")
        return self._install_dataset([path], ds)

    def _on_import_table(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import table with column mapping",
                                              self.settings.last_folder(),
                                              "Tables (*.csv *.tsv *.txt);;All files (*)")
        if path:
            self.import_table(path)

    @property
    def loading(self) -> BackgroundLoader:
        loader = self.__dict__.get("_loader")
        if loader is None:
            loader = BackgroundLoader(self.statusBar(), self)
            loader.loaded.connect(self._install_dataset)
            loader.failed.connect(lambda paths, msg: self._offer_column_mapping(list(paths), msg)
                                  or self.post(f"Cannot open: {msg}"))
            loader.cancelled.connect(lambda paths: self.post(
                f"Loading cancelled: {', '.join(map(str, paths))} (the previous data stays)"))
            self.__dict__["_loader"] = loader
        return loader

    def _install_dataset(self, paths: list[str], ds: Dataset) -> bool:
        """Show a loaded dataset (GUI thread): labels beside it, recent files, the first series."""
        for problem in ds.problems:
            self.post(f"Skipped {in_gui_words(problem)}")
        labels: dict[str, LabelRow] = dict(ds.labels)  # a segview export's aggregated labels
        for f in ds.label_files:
            try:
                labels.update(read_labels(f))
            except RecoverableError as err:
                self.post(f"Labels not read: {err}")
        ids = {s.id for s in ds.series}
        for f in self._nearby_label_files(paths, ds.label_files):
            try:
                found = read_labels(f)
            except RecoverableError:
                continue  # not a labels table
            if ids & set(found):
                labels.update(found)
        if not ds.series:
            self.post("No series found in " + ", ".join(map(str, paths)))
            return False
        for p in paths:
            self._fill_recent(self.settings.add_recent(str(Path(p).resolve())))
        first = Path(paths[0]).resolve()
        self.settings.set_last_folder(str(first if first.is_dir() else first.parent))
        self.set_dataset(list(ds.series), labels, ds.annotations)
        ann = ds.change_point_truth()
        self.post(f"Loaded {len(ds.series)} series" + (f" and labels of {len(labels)}" if labels
                                                       else "")
                  + (f", annotators' change points of {len(ann)}" if ann else "")
                  + f" from {', '.join(map(str, paths))}")
        return True

    @staticmethod
    def _nearby_label_files(paths: list[str], known: list[Path]) -> list[Path]:
        """``labels.csv`` beside the opened files or folders, or one level up (``jmh/series``)."""
        out: list[Path] = []
        seen = {Path(k).resolve() for k in known}
        for raw in paths:
            p = Path(raw).resolve()
            base = p if p.is_dir() else p.parent
            for cand in (base / "labels.csv", base.parent / "labels.csv"):
                if cand.is_file() and cand not in seen:
                    seen.add(cand)
                    out.append(cand)
        return out

    # ------------------------------------------------------------------ recent files and export
    def _fill_recent(self, paths: list[str]) -> None:
        self.recent_menu.clear()
        for p in paths:
            act = self.recent_menu.addAction(p)
            act.setData(p)
        self.recent_menu.setEnabled(bool(paths))

    def _on_recent_triggered(self, action: QAction) -> None:
        self.open_paths([str(action.data())])

    def _on_open_file(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open series files", self.settings.last_folder())
        if paths:
            self.open_paths(paths)

    def _on_open_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open folder", self.settings.last_folder())
        if folder:
            self.open_paths([folder])

    def _on_export_plot(self) -> None:
        opts = ExportOptionsDialog(int(self.layout_item.width()), self)
        if opts.exec() != ExportOptionsDialog.DialogCode.Accepted:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export plot", self.settings.last_folder(),
                                              "PNG image (*.png);;SVG vector image (*.svg)")
        if path:
            self.export_plot(path, width=opts.width.value(), legend=opts.legend.isChecked())

    def export_plot(self, path: str, width: int | None = None, legend: bool = True) -> None:
        """Save the plots as PNG (``width`` pixels wide) or SVG, with a legend of the series, the
        reference and every enabled method unless ``legend`` is False. In the benchmark view:
        every execution as shown (the method colours are named in its heading)."""
        if self.current_benchmark is not None:
            export_plot(self.bench_view.layout_item, path, width=width)
            self.post(f"Plot of {self.current_benchmark.name} saved to {path}")
            return
        item = self._add_export_legend() if legend else None
        try:
            export_plot(self.layout_item, path, width=width)
        except OutputError as err:  # a full disk, no permission: nothing cut is left behind
            self.post(f"Plot not saved: {err}")
            return
        finally:
            if item is not None:
                item.hide()
                if item.scene() is not None:
                    item.scene().removeItem(item)
        self.post(f"Plot saved to {path}")

    def _add_export_legend(self):
        import pyqtgraph as pg

        from .plots.series_plot import REFERENCE_COLOR, SERIES_PEN

        legend = pg.LegendItem(offset=(-8, 8), brush=pg.mkBrush(255, 255, 255, 225),
                               pen=pg.mkPen("#999999"), labelTextColor="#202020")
        legend.setParentItem(self.main_plot.vb)
        name = self.current.id if self.current is not None else "series"
        legend.addItem(pg.PlotDataItem(pen=pg.mkPen(SERIES_PEN, width=1)), name)
        if self.series_plot.reference.isVisible():
            legend.addItem(pg.PlotDataItem(pen=pg.mkPen(REFERENCE_COLOR, width=2,
                                                        style=Qt.PenStyle.DotLine)),
                           "reference onset (judges)")
        for spec in self.specs:
            if spec.name in self.enabled:
                st = self.model.status_of(spec.name)
                legend.addItem(pg.PlotDataItem(pen=pg.mkPen(self.colors[spec.name], width=3)),
                               spec.label + (f": {st}" if st else ""))
        return legend

    def _on_export_current(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export detections", self.settings.last_folder(),
                                              "CSV (*.csv)")
        if path:
            self.export_csv(path, all_series=False)

    def _on_export_all(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export detections of all series",
                                              self.settings.last_folder(), "CSV (*.csv)")
        if path:
            self.export_csv(path, all_series=True)

    def export_csv(self, path: str, all_series: bool = False, partial: bool = False) -> bool:
        """Write the detections (columns of ``segview detect``) of the enabled methods.

        For all series, missing results are computed first with a cancellable batch; the file is
        written when it finishes (returns False then). ``partial`` writes what exists now (a
        cancelled batch's export) and says so.
        """
        targets = self.series if all_series else ([self.current] if self.current else [])
        specs = [s for s in self.specs if s.name in self.enabled]
        missing = [(s.id, sp.name) for s in targets for sp in specs
                   if not self._has_current_result(s.id, sp.name)]
        if missing and all_series and not partial:
            self._export_after_batch = path
            self.run_on_all()
            return False
        rows = [detection_row(s.id, sp, self.results[(s.id, sp.name)], s) for s in targets
                for sp in specs if self._has_current_result(s.id, sp.name)]
        try:
            n = write_csv(path, rows)
        except OutputError as err:  # a full disk, no permission: nothing cut is left behind
            self.post(f"Detections not saved: {err}")
            return False
        if partial:
            self.post(f"Partial export: {n} of {len(targets) * len(specs)} detections saved to "
                      f"{path}")
        else:
            self.post(f"{n} detections saved to {path}")
        return True

    def _has_current_result(self, sid: str, name: str) -> bool:
        return self.model.result(sid, name) is not None
