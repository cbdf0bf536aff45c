"""The explorer's main window: wiring between panels, plots and the job runner (no algorithms here)."""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QColor, QIcon, QKeySequence, QPixmap
from PySide6.QtWidgets import (QDockWidget, QFileDialog, QInputDialog, QLabel, QListWidget,
                               QListWidgetItem, QMainWindow, QProgressBar, QPushButton, QWidget)

from ..core import registry
from ..core.errors import RecoverableError
from ..core.io import load
from ..core.io.labels_csv import LabelRow, read_labels
from ..core.model import Series
from ..core.params import Params
from ..core.registry import DetectorSpec
from ..core.result import DetectionResult
from .dataset_panel import NONE_SORT, DatasetPanel
from .export import detection_row, export_plot, write_csv
from .jobs import JobRunner, Lane, Request
from .param_panel import ParamPanel
from .plots.markers import LaneMarkers
from .plots.overview import Overview
from .plots.series_plot import SeriesPlot
from .plots.track_plot import TrackStack
from .settings import Settings

log = logging.getLogger(__name__)

# Okabe-Ito based qualitative palette (colour-blind safe; yellow dropped: unreadable on white).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8C564B", "#7F7F7F",
           "#332288", "#117733")
MAX_MESSAGES = 300


def swatch(color: str) -> QIcon:
    pix = QPixmap(14, 14)
    pix.fill(QColor(color))
    return QIcon(pix)


class MainWindow(QMainWindow):
    """Dataset panel | plot with overlays and tracks | methods and parameters."""

    overlay_updated = Signal(str)  # method name, after its result was drawn
    series_shown = Signal(str)
    message_posted = Signal(str)

    def __init__(self, settings: Settings | None = None, specs: list[DetectorSpec] | None = None,
                 persist: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pg.setConfigOptions(antialias=False, background="w", foreground="k")
        self.settings = settings if settings is not None else Settings()
        self.persist = persist
        self.specs = list(specs) if specs is not None else registry.all_specs()
        self.spec_by_name = {s.name: s for s in self.specs}
        self.colors = {s.name: PALETTE[i % len(PALETTE)] for i, s in enumerate(self.specs)}
        self.runner = JobRunner(self)
        self.series: list[Series] = []
        self._by_id: dict[str, Series] = {}
        self.labels: dict[str, LabelRow] = {}
        self.current: Series | None = None
        self.results: dict[Lane, DetectionResult] = {}
        self.status: dict[str, str] = {}
        self._runtime: dict[str, float] = {}
        self._export_after_batch: str | None = None
        saved = self.settings.enabled_methods()
        self.enabled = ({s.name for s in self.specs if not s.slow} if saved is None
                        else {n for n in saved if n in self.spec_by_name})
        self.params: dict[str, Params] = {s.name: self.settings.params(s) for s in self.specs}
        self.setWindowTitle("segview")
        self.setAcceptDrops(True)
        self.resize(1400, 860)
        self._build_plots()
        self._build_docks()
        self._build_status_bar()
        self._build_menus()
        self._connect_runner()
        geometry, state = self.settings.layout()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    # ------------------------------------------------------------------ building
    def _build_plots(self) -> None:
        self.plot_widget = pg.GraphicsLayoutWidget(self)
        self.layout_item = self.plot_widget.ci
        self.main_plot = pg.PlotItem()
        self.series_plot = SeriesPlot(self.main_plot)
        self.plot_widget.addItem(self.main_plot, row=0, col=0)
        self.series_plot.on_hover(self._on_plot_hover)
        self.lanes = {s.name: LaneMarkers(self.main_plot, self.colors[s.name], s.name, z=10 + i)
                      for i, s in enumerate(self.specs)}
        self.tracks = TrackStack(self.main_plot, on_threshold=self._on_threshold_dropped)
        self.overview = Overview(self.main_plot)
        self._relayout()
        self.setCentralWidget(self.plot_widget)

    def _relayout(self) -> None:
        """Place main plot, visible tracks and the overview in rows."""
        lay = self.layout_item
        for item in list(lay.items):
            lay.removeItem(item)
        lay.addItem(self.main_plot, row=0, col=0)
        rows = self.tracks.views()
        for i, view in enumerate(rows, start=1):
            lay.addItem(view.plot, row=i, col=0)
            lay.layout.setRowStretchFactor(i, 1)
        lay.addItem(self.overview.plot, row=len(rows) + 1, col=0)
        lay.layout.setRowStretchFactor(0, 4)
        lay.layout.setRowStretchFactor(len(rows) + 1, 0)
        # one x axis at the bottom of the stack: fewer axes to lay out and paint (tick text is the
        # most expensive part of a repaint)
        for i, view in enumerate(rows):
            last = i == len(rows) - 1
            view.plot.showAxis("bottom", last)
            view.plot.getAxis("bottom").setStyle(showValues=last)
        self.main_plot.showAxis("bottom", not rows)

    def _build_docks(self) -> None:
        self.dataset_panel = DatasetPanel(self)
        self.dataset_panel.model.set_methods(self.specs)
        self.dataset_panel.series_selected.connect(self._on_dataset_series_selected)
        self._add_dock("Series", self.dataset_panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.method_list = QListWidget(self)
        self.method_list.setToolTip("Tick a method to show its overlay; colours match the plot")
        for s in self.specs:
            item = QListWidgetItem(swatch(self.colors[s.name]), s.label)
            item.setData(Qt.ItemDataRole.UserRole, s.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if s.name in self.enabled
                               else Qt.CheckState.Unchecked)
            tip = s.description or s.label
            if s.citation:
                tip += f"\n{s.citation}"
            item.setToolTip(tip + ("\n(slow: runs with progress and cancel)" if s.slow else ""))
            self.method_list.addItem(item)
        self.method_list.setMaximumHeight(22 * max(3, len(self.specs)) + 8)
        self.method_list.itemChanged.connect(self._on_method_item_changed)
        self.method_list.currentItemChanged.connect(self._on_method_list_current_changed)
        self._add_dock("Methods", self.method_list, Qt.DockWidgetArea.RightDockWidgetArea)
        self.param_panel = ParamPanel(self.specs, self)
        for s in self.specs:
            self.param_panel.set_params(s.name, self.params[s.name])
            self.param_panel.set_method_visible(s.name, s.name in self.enabled)
        self.param_panel.params_changed.connect(self._on_param_panel_params_changed)
        self.param_panel.params_invalid.connect(self._on_param_panel_params_invalid)
        self._add_dock("Parameters", self.param_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.messages = QListWidget(self)
        self.messages.setWordWrap(True)
        self.messages.setMinimumHeight(40)
        self.messages.setMaximumHeight(110)
        self._add_dock("Messages", self.messages, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._sized = False
        self._sync_table_columns()
        focus = self.settings.q.value("methods/focus")
        self.set_focus(str(focus) if focus else None)

    def _add_dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{title.lower()}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.hover_label = QLabel(self)
        bar.addPermanentWidget(self.hover_label)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(220)
        self.progress.setRange(0, 1000)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Cancel running detector jobs")
        self.cancel_button.clicked.connect(self.cancel_jobs)
        self.cancel_button.hide()
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)

    def _action(self, menu, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcuts(shortcut if isinstance(shortcut, list) else [QKeySequence(shortcut)])
        if tip:
            act.setStatusTip(tip)
        act.triggered.connect(slot)
        menu.addAction(act)
        self.addAction(act)
        return act

    def _build_menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self._action(f, "&Open file…", self._on_open_file, QKeySequence.StandardKey.Open)
        self._action(f, "Open &folder…", self._on_open_folder, "Ctrl+Shift+O")
        self.recent_menu = f.addMenu("Open &recent")
        self.recent_menu.triggered.connect(self._on_recent_triggered)
        self._fill_recent(self.settings.recent_files())
        f.addSeparator()
        self._action(f, "Export plot as PNG/SVG…", self._on_export_plot, "Ctrl+E")
        self._action(f, "Export detections (current series)…", self._on_export_current)
        self._action(f, "Export detections (all series)…", self._on_export_all)
        f.addSeparator()
        self._action(f, "&Annotate…", self.open_annotation, "Ctrl+Shift+A",  # annotation mode
                     "label the loaded series as a judge (annotation session)")
        self._action(f, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        v = mb.addMenu("&View")
        self._action(v, "&Next series", self.next_series,
                     [QKeySequence("PgDown"), QKeySequence("Alt+Down")])
        self._action(v, "&Previous series", self.previous_series,
                     [QKeySequence("PgUp"), QKeySequence("Alt+Up")])
        self._action(v, "&Jump to series…", self._on_jump, "Ctrl+J")
        self._action(v, "&Reset zoom", self.reset_zoom, [QKeySequence("Ctrl+0"), QKeySequence("Home")])
        r = mb.addMenu("&Run")
        self._action(r, "Run enabled methods on &all series", self.run_on_all, "Ctrl+R")
        self._action(r, "&Cancel running jobs", self.cancel_jobs, "Esc")
        self._action(r, "&Evaluate…", self.open_evaluation, "Ctrl+Shift+E",  # evaluation view hook
                     "compare onset methods with a truth on the loaded series")
        s = mb.addMenu("&Settings")
        self._action(s, "Restore &faithful defaults", self.restore_faithful_defaults)
        h = mb.addMenu("&Help")
        self._action(h, "Keyboard shortcuts", self._on_help_keys)

    def _connect_runner(self) -> None:
        r = self.runner
        r.result_ready.connect(self._on_runner_result_ready)
        r.job_failed.connect(self._on_runner_job_failed)
        r.job_started.connect(self._on_runner_job_started)
        r.progress.connect(self._on_runner_progress)
        r.idle.connect(self._on_runner_idle)
        r.batch_item.connect(self._on_runner_batch_item)
        r.batch_failed.connect(self._on_runner_batch_failed)
        r.batch_progress.connect(self._on_runner_batch_progress)
        r.batch_finished.connect(self._on_runner_batch_finished)

    # ------------------------------------------------------------------ data
    def open_paths(self, paths: list[str]) -> bool:
        """Load files/folders (replacing the current dataset); False when nothing could be loaded."""
        try:
            ds = load(paths)
        except RecoverableError as err:
            self.post(f"Cannot open: {err}")
            return False
        for problem in ds.problems:
            self.post(f"Skipped {problem}")
        labels: dict[str, LabelRow] = {}
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
        self.set_dataset(list(ds.series), labels)
        self.post(f"Loaded {len(ds.series)} series" + (f" and labels of {len(labels)}" if labels
                                                       else "") + f" from {', '.join(map(str, paths))}")
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

    def set_dataset(self, series: list[Series], labels: dict[str, LabelRow] | None = None) -> None:
        self.runner.cancel_all()
        self.runner.cache.clear()
        self.results.clear()
        self.series = list(series)
        self._by_id = {s.id: s for s in self.series}
        self.labels = dict(labels or {})
        self.dataset_panel.model.set_dataset(self.series, self.labels)
        self.current = None
        if self.series:
            self.dataset_panel.select(self.series[0].id)

    def show_series(self, series_id: str) -> None:
        s = self._by_id[series_id]
        if self.current is not None and self.current.id == series_id:
            return
        self.current = s
        self.runner.cancel_lanes(keep_series=series_id)
        self.series_plot.set_series(s)
        self.overview.set_series(s)
        lab = self.labels.get(s.id)
        ref = None if lab is None else lab.jagt_index
        self.series_plot.set_reference(ref, "reference" if ref is not None else "")
        for lane in self.lanes.values():
            lane.clear()
        self.tracks.blank()
        i = self.series.index(s)
        steady = "" if lab is None or lab.steady is None else (
            f", labelled steady from {lab.jagt_index}" if lab.steady else ", labelled never steady")
        self.setWindowTitle(f"segview — {s.id} ({i + 1}/{len(self.series)}, n={len(s)}{steady})")
        for spec in self.specs:
            self.status[spec.name] = ""
        # quickest first (by the last run time seen), so slow methods do not hold up the others
        for spec in sorted((sp for sp in self.specs if sp.name in self.enabled),
                           key=lambda sp: (sp.slow, self._runtime.get(sp.name, 0.0))):
            self._compute(spec, immediate=True)
        self._refresh_method_items()
        self.series_shown.emit(series_id)

    def _compute(self, spec: DetectorSpec, immediate: bool = False) -> None:
        if self.current is None:
            return
        lane = (self.current.id, spec.name)
        cached = self.results.get(lane)
        if cached is not None and cached.params == self.params[spec.name]:
            self._draw(spec, cached)
            return
        self.runner.request(self.current, spec, self.params[spec.name], immediate=immediate)

    # ------------------------------------------------------------------ drawing
    def _draw(self, spec: DetectorSpec, res: DetectionResult) -> None:
        sp = self.series_plot
        lane = self.lanes[spec.name]
        lane.set_change_points([sp.x_of(c) for c in res.change_points], sp.y_span())
        onset = res.steady_start if spec.produces == "onset" else None
        lane.set_onset(None if onset is None else sp.x_of(onset), sp.x_end())
        series = self.current

        def x_map(xs: np.ndarray) -> np.ndarray:
            if series is None or series.x is None:
                return xs
            return np.interp(xs, np.arange(len(series)), series.x)

        if self.tracks.set_tracks(spec.name, res.tracks, self.colors[spec.name], spec.label,
                                  dict(res.params), x_map) and spec.name == self.tracks.focus:
            self._relayout()
        if spec.produces == "onset":
            text = "never steady" if res.steady_start is None else f"onset {res.steady_start}"
        else:
            k = len(res.change_points)
            text = f"{k} change point{'' if k == 1 else 's'}"
        self.status[spec.name] = f"{text}, {res.runtime_ms:.0f} ms"
        self._refresh_method_items()
        self.overlay_updated.emit(spec.name)

    def _clear_method(self, name: str) -> None:
        self.lanes[name].clear()
        if self.tracks.clear_method(name) and name == self.tracks.focus:
            self._relayout()

    def set_focus(self, name: str | None) -> None:
        """Show the diagnostic tracks of ``name`` (None: the first enabled onset detector)."""
        if name is None or name not in self.enabled:
            enabled = [s for s in self.specs if s.name in self.enabled]
            onset = [s for s in enabled if s.produces == "onset"]
            name = (onset or enabled)[0].name if enabled else None
        if name == self.tracks.focus:
            return
        self.tracks.focus = name
        self._relayout()
        for lane_name, lane in self.lanes.items():
            lane.set_emphasis(lane_name == name)
        for box_name, box in self.param_panel.boxes.items():
            box.setStyleSheet(f"QGroupBox::title {{ color: {self.colors[box_name]}; }}"
                              if box_name == name else "")
        if name is not None:
            QTimer.singleShot(0, self._scroll_params_to_focus)
            for i in range(self.method_list.count()):
                item = self.method_list.item(i)
                if item.data(Qt.ItemDataRole.UserRole) == name:
                    self.method_list.blockSignals(True)
                    self.method_list.setCurrentItem(item)
                    self.method_list.blockSignals(False)
            if self.persist:
                self.settings.q.setValue("methods/focus", name)

    @Slot()
    def _scroll_params_to_focus(self) -> None:
        box = self.param_panel.boxes.get(self.tracks.focus or "")
        if box is not None:
            self.param_panel.verticalScrollBar().setValue(box.y())

    def _on_method_list_current_changed(self, current: QListWidgetItem | None,
                                         _previous: QListWidgetItem | None) -> None:
        if current is not None:
            name = current.data(Qt.ItemDataRole.UserRole)
            if name in self.enabled:
                self.set_focus(name)

    def _refresh_method_items(self) -> None:
        self.method_list.blockSignals(True)
        for i in range(self.method_list.count()):
            item = self.method_list.item(i)
            name = item.data(Qt.ItemDataRole.UserRole)
            st = self.status.get(name, "") if name in self.enabled else ""
            item.setText(self.spec_by_name[name].label + (f" — {st}" if st else ""))
        self.method_list.blockSignals(False)

    def _table_cell(self, spec: DetectorSpec, res: DetectionResult) -> tuple[str, float]:
        if spec.produces == "onset":
            if res.steady_start is None:
                return "never", NONE_SORT
            return str(res.steady_start), float(res.steady_start)
        return f"{len(res.change_points)} cp", float(len(res.change_points))

    def _sync_table_columns(self) -> None:
        for j, spec in enumerate(self.specs):
            self.dataset_panel.table.setColumnHidden(4 + j, spec.name not in self.enabled)

    def set_method_enabled(self, name: str, on: bool) -> None:
        """Show or hide a method (same as ticking it in the Methods list)."""
        for i in range(self.method_list.count()):
            item = self.method_list.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == name:
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    # ------------------------------------------------------------------ runner slots
    @Slot(object, object)
    def _on_runner_result_ready(self, lane: Lane, res: DetectionResult) -> None:
        sid, name = lane
        spec = self.spec_by_name.get(name)
        if spec is None:
            return
        self.results[lane] = res
        self._runtime[name] = res.runtime_ms
        if res.params == self.params[name]:
            self.dataset_panel.model.set_result(sid, name, *self._table_cell(spec, res))
        if (self.current is not None and sid == self.current.id and name in self.enabled
                and res.params == self.params[name]):
            self._draw(spec, res)

    @Slot(object, str, bool)
    def _on_runner_job_failed(self, lane: Lane, text: str, recoverable: bool) -> None:
        sid, name = lane
        spec = self.spec_by_name.get(name)
        label = spec.label if spec else name
        first = text.strip().splitlines()[-1] if text.strip() else "failed"
        kind = "" if recoverable else " (bug; details in the log)"
        self.post(f"{label} on {sid}: {first}{kind}", tooltip=text)
        self.dataset_panel.model.set_result(sid, name, "error", NONE_SORT)
        if self.current is not None and sid == self.current.id:
            self._clear_method(name)
            self.status[name] = "\u26a0 error"
            self._refresh_method_items()

    @Slot(object, object)
    def _on_runner_job_started(self, lane: Lane, req: Request) -> None:
        if req.spec.slow:
            self.progress.setRange(0, 0)  # busy until the first progress report
            self.progress.show()
            self.cancel_button.show()
            self.status[req.spec.name] = "running…"
            self._refresh_method_items()

    @Slot(object, float, str)
    def _on_runner_progress(self, lane: Lane, fraction: float, message: str) -> None:
        self.progress.setRange(0, 1000)
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"{self.spec_by_name[lane[1]].label} %p%")
        self.progress.show()
        self.cancel_button.show()

    @Slot()
    def _on_runner_idle(self) -> None:
        self.progress.hide()
        self.cancel_button.hide()

    @Slot(str, str, object, object)
    def _on_runner_batch_item(self, sid: str, name: str, params: object, res: object) -> None:
        self.results[(sid, name)] = res
        spec = self.spec_by_name[name]
        if params == self.params[name]:
            self.dataset_panel.model.set_result(sid, name, *self._table_cell(spec, res))

    @Slot(str, str, str)
    def _on_runner_batch_failed(self, sid: str, name: str, text: str) -> None:
        self.post(f"{self.spec_by_name[name].label} on {sid}: {text}")
        self.dataset_panel.model.set_result(sid, name, "error", NONE_SORT)

    @Slot(float, str)
    def _on_runner_batch_progress(self, fraction: float, message: str) -> None:
        self.progress.setRange(0, 1000)
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"all series %p%  {message}")
        self.progress.show()
        self.cancel_button.show()

    @Slot(bool)
    def _on_runner_batch_finished(self, cancelled: bool) -> None:
        self.post("Run on all series cancelled" if cancelled else "Run on all series finished")
        path, self._export_after_batch = self._export_after_batch, None
        if path and not cancelled:
            self.export_csv(path, all_series=True)

    # ------------------------------------------------------------------ user intents
    @Slot(str)
    def _on_dataset_series_selected(self, series_id: str) -> None:
        self.show_series(series_id)

    @Slot(str, object)
    def _on_param_panel_params_changed(self, name: str, params: Params) -> None:
        if params == self.params.get(name):
            return
        self.params[name] = params
        if self.persist:
            self.settings.set_params(self.spec_by_name[name], params)
        self.dataset_panel.model.clear_method(name)
        if name in self.enabled:
            self._compute(self.spec_by_name[name])

    @Slot(str, str)
    def _on_param_panel_params_invalid(self, name: str, text: str) -> None:
        self.post(f"{self.spec_by_name[name].label}: {text}")

    def _on_threshold_dropped(self, method: str, param: str, value: float) -> None:
        spec = self.spec_by_name[method].param(param)
        lo = spec.low if spec.low is not None else value
        hi = spec.high if spec.high is not None else value
        value = min(max(value, lo), hi)
        if spec.kind == "int":
            value = int(round(value))
        self.param_panel.set_value(method, param, value)

    @Slot(QListWidgetItem)
    def _on_method_item_changed(self, item: QListWidgetItem) -> None:
        name = item.data(Qt.ItemDataRole.UserRole)
        on = item.checkState() == Qt.CheckState.Checked
        if on == (name in self.enabled):
            return
        self.param_panel.set_method_visible(name, on)
        if on:
            self.enabled.add(name)
            self.lanes[name].set_visible(True)
            self._compute(self.spec_by_name[name], immediate=True)
        else:
            self.enabled.discard(name)
            if self.current is not None:
                self.runner.cancel_lanes(keep_series=self.current.id, detector=name)
            self.lanes[name].set_visible(False)
            if self.tracks.focus == name:
                self.set_focus(None)
        if self.persist:
            self.settings.set_enabled_methods(self.enabled)
        self._sync_table_columns()
        self._refresh_method_items()

    def next_series(self) -> None:
        self.dataset_panel.step(+1)

    def previous_series(self) -> None:
        self.dataset_panel.step(-1)

    def jump_to(self, text: str) -> bool:
        """Show a series by id, or by 1-based position."""
        text = text.strip()
        if text in self._by_id:
            return self.dataset_panel.select(text)
        if text.isdigit() and 1 <= int(text) <= len(self.series):
            return self.dataset_panel.select(self.series[int(text) - 1].id)
        matches = [s.id for s in self.series if text.lower() in s.id.lower()]
        if matches:
            return self.dataset_panel.select(matches[0])
        self.post(f"No series matches {text!r}")
        return False

    def _on_jump(self) -> None:
        text, ok = QInputDialog.getText(self, "Jump to series", "Series id or number:")
        if ok and text:
            self.jump_to(text)

    def reset_zoom(self) -> None:
        self.series_plot.reset_view()

    def run_on_all(self) -> bool:
        """Run every enabled method on every series (one cancellable batch job)."""
        work = [(s, self.params[s.name]) for s in self.specs if s.name in self.enabled]
        if not self.series or not work:
            return False
        if not self.runner.run_batch(self.series, work):
            self.post("A run on all series is already in progress")
            return False
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        return True

    def cancel_jobs(self) -> None:
        busy = self.runner.is_busy()
        self.runner.cancel_all()
        if busy:
            self.post("Cancelled running jobs")
            for name in self.enabled:
                if self.status.get(name) == "running…":
                    self.status[name] = "cancelled"
            self._refresh_method_items()

    def restore_faithful_defaults(self) -> None:
        self.settings.clear_params()
        self.param_panel.reset_all()
        self.post("Restored the faithful defaults of every method")

    def post(self, text: str, tooltip: str = "") -> None:
        """Show a non-modal message in the Messages panel and the status bar."""
        item = QListWidgetItem(text)
        if tooltip:
            item.setToolTip(tooltip)
        self.messages.addItem(item)
        while self.messages.count() > MAX_MESSAGES:
            self.messages.takeItem(0)
        self.messages.scrollToBottom()
        self.statusBar().showMessage(text, 8000)
        log.info("%s", text)
        self.message_posted.emit(text)

    # ------------------------------------------------------------------ files and export
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
        path, _ = QFileDialog.getSaveFileName(self, "Export plot", self.settings.last_folder(),
                                              "PNG image (*.png);;SVG vector image (*.svg)")
        if path:
            self.export_plot(path)

    def export_plot(self, path: str) -> None:
        export_plot(self.layout_item, path)
        self.post(f"Plot saved to {path}")

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

    def export_csv(self, path: str, all_series: bool = False) -> bool:
        """Write the detections (columns of ``segview detect``) of the enabled methods.

        For all series, missing results are computed first with a cancellable batch; the file is
        written when it finishes (returns False then).
        """
        targets = self.series if all_series else ([self.current] if self.current else [])
        specs = [s for s in self.specs if s.name in self.enabled]
        missing = [(s.id, sp.name) for s in targets for sp in specs
                   if not self._has_current_result(s.id, sp.name)]
        if missing and all_series:
            self._export_after_batch = path
            self.run_on_all()
            return False
        rows = [detection_row(s.id, sp, self.results[(s.id, sp.name)]) for s in targets
                for sp in specs if self._has_current_result(s.id, sp.name)]
        n = write_csv(path, rows)
        self.post(f"{n} detections saved to {path}")
        return True

    def _has_current_result(self, sid: str, name: str) -> bool:
        res = self.results.get((sid, name))
        return res is not None and res.params == self.params[name]

    def _on_help_keys(self) -> None:
        self.post("PgDown/Alt+Down next series · PgUp/Alt+Up previous · Ctrl+J jump · "
                  "Home/Ctrl+0 reset zoom · Ctrl+R run on all series · Esc cancel · "
                  "mouse wheel zooms, drag pans")

    def _on_plot_hover(self, text: str) -> None:
        self.hover_label.setText(text)

    # ------------------------------------------------------------------ annotation mode hook
    def open_annotation(self) -> None:
        """Open the annotation window (segview.gui.annotate) on the files of the loaded series."""
        from .annotate.window import AnnotationWindow

        paths = list(dict.fromkeys(str(s.metadata["source"]) for s in self.series
                                   if s.metadata.get("source")))
        self.annotation_window = AnnotationWindow(paths)
        self.annotation_window.show()
        QTimer.singleShot(0, self.annotation_window.ask_session)

    # ------------------------------------------------------------------ evaluation view hook
    def open_evaluation(self) -> None:
        """Open the evaluation view (segview.gui.evaluate) on the loaded series and their labels."""
        from .evaluate.view import EvaluationWindow

        self.evaluation_window = EvaluationWindow(self)
        self.evaluation_window.show()

    # ------------------------------------------------------------------ Qt events
    def dragEnterEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.open_paths(paths)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._sized and self.settings.layout()[1] is None:  # first run: sensible dock sizes
            self._sized = True
            QTimer.singleShot(0, self._initial_dock_sizes)

    def _initial_dock_sizes(self) -> None:
        if True:
            docks = {d.objectName(): d for d in self.findChildren(QDockWidget)}
            self.resizeDocks([docks["dock_messages"]], [60], Qt.Orientation.Vertical)
            self.resizeDocks([docks["dock_series"], docks["dock_parameters"]], [440, 400],
                             Qt.Orientation.Horizontal)
            self.resizeDocks([docks["dock_methods"]], [190], Qt.Orientation.Vertical)

    def closeEvent(self, event) -> None:  # noqa: N802
        if self.persist:
            self.settings.save_layout(self.saveGeometry(), self.saveState())
            self.settings.set_enabled_methods(self.enabled)
            self.settings.sync()
        if not self.runner.shutdown(2000):
            log.warning("some detector threads did not stop within 2 s")
        super().closeEvent(event)
