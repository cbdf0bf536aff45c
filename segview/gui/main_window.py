"""The explorer's main window: wiring between panels, plots and the job runner (no algorithms here).

The explorer's state (dataset, current series or benchmark, methods and parameters, results, jobs
in flight, the evaluation overlay) is a Qt-free :class:`~segview.core.explorer_model.ExplorerModel`
(``self.model``); the window renders it and sends it intents. The window builds its plots, docks,
status bar and menus, wires the job runner and handles Qt's events; what it shows lives in :mod:`.explorer_display`, what the user asks for in
:mod:`.explorer_controls`, and opening and exporting files in :mod:`.explorer_files` (mixins).
"""
from __future__ import annotations

import logging
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QGuiApplication, QIcon, QKeySequence, QPixmap, QUndoStack
from PySide6.QtWidgets import (QApplication, QDockWidget, QLabel, QListWidget, QListWidgetItem,
                               QMainWindow, QProgressBar, QPushButton, QScrollArea, QStackedWidget,
                               QWidget)

from ..core import registry
from ..core.explorer_model import ExplorerModel
from ..core.registry import DetectorSpec
from .dataset_panel import DatasetPanel
from .explorer_controls import ExplorerControls
from .explorer_display import ExplorerDisplay
from .explorer_files import ExplorerFiles
from .explorer_penalty import ExplorerPenaltyPath
from .jobs import JobRunner, shared_processes
from .geometry import clamp_to_screen, default_geometry
from .help_dialogs import show_about, show_shortcuts
from .param_panel import DEFAULTS, ParamPanel
from .plots.benchmark_view import BenchmarkView
from .plots.lanes import MethodLanes
from .plots.markers import LaneMarkers
from .plots.navigation import XZoomViewBox
from .plots.overview import Overview
from .plots.series_plot import SeriesPlot
from .plots.title import install as install_elided_title
from .plots.track_plot import TrackStack
from .settings import Settings
from .warmup_panel import WarmupPanel

log = logging.getLogger(__name__)

# Okabe-Ito based qualitative palette (colour-blind safe; yellow dropped: unreadable on white).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8C564B", "#7F7F7F",
           "#332288", "#117733")
MAX_MESSAGES = 300
MIN_PLOT_WIDTH = 240  # px: a restored layout must leave the plot at least this big
MIN_PLOT_HEIGHT = 160
SHORT_SCREEN = 640  # px of available height below which the left panels become tabs
MOUSE_HELP = (("Wheel", "zoom x around the pointer (y follows the data in view)"),
              ("Ctrl/Shift + wheel", "zoom y"),
              ("Drag", "pan x (Ctrl/Shift: pan y)"),
              ("Right click on a plot", "View all, Fit y, Export plot, diagnostic tracks"),
              ("Click or drag on the overview strip", "move the view there"),
              ("Hover a method lane", "its lines in full height on the series"),
              ("Click a method lane", "focus the method (tracks, parameters)"),
              ("Wheel over the Parameters panel", "scrolls it; click a control first to wheel it"),
              ("Double click an execution (benchmark view)", "show that execution alone"),
              ("Double click an execution (Warm-up panel)", "show that execution alone"))


def swatch(color: str) -> QIcon:
    pix = QPixmap(14, 14)
    pix.fill(QColor(color))
    return QIcon(pix)


class LeaveWatch(QObject):
    """Calls ``callback`` when the watched widget sees the pointer leave it."""

    def __init__(self, callback: Callable[[], None], parent: QObject) -> None:
        super().__init__(parent)
        self._callback = callback

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Leave:
            self._callback()
        return False


class MainWindow(ExplorerDisplay, ExplorerControls, ExplorerFiles, ExplorerPenaltyPath, QMainWindow):
    """Dataset panel | plot with overlays and tracks | methods and parameters."""

    overlay_updated = Signal(str)  # method name, after its result was drawn
    series_shown = Signal(str)
    benchmark_shown = Signal(str)  # a multi-execution benchmark's view, by name
    benchmark_result_drawn = Signal(str, str)  # series id, method: drawn in the benchmark view
    message_posted = Signal(str)
    layout_checked = Signal(bool)  # a restored layout was checked: True = kept

    def __init__(self, settings: Settings | None = None, specs: list[DetectorSpec] | None = None,
                 persist: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pg.setConfigOptions(antialias=False, background="w", foreground="k")
        self.settings = settings if settings is not None else Settings()
        self.persist = persist
        self.specs = list(specs) if specs is not None else registry.all_specs()
        self.spec_by_name = {s.name: s for s in self.specs}
        self.colors = {s.name: PALETTE[i % len(PALETTE)] for i, s in enumerate(self.specs)}
        self.runner = JobRunner(self, processes=shared_processes())
        saved = self.settings.enabled_methods()
        fresh = {s.name for s in self.specs if not s.slow and s.enabled_by_default}
        # the explorer's state (dataset, series, methods, parameters, results, jobs, overlays):
        # a Qt-free model; this window renders it and sends it the user's intents
        self.model = ExplorerModel(
            {s.name: self.settings.params(s) for s in self.specs},
            fresh if saved is None else {n for n in saved if n in self.spec_by_name})
        self.model.jobs_cancelled.connect(self._on_model_jobs_cancelled)
        self.model.status_changed.connect(lambda _name: self._refresh_method_items())
        self.model.warmup_added.connect(self._on_model_warmup_added)
        self.model.warmup_cancelled.connect(lambda _token: self.runner.cancel_warmup())
        self.fill_missing = None  # TCPD gaps: reported (File > Missing values; segview gui)
        self._runtime: dict[str, float] = {}
        self._export_after_batch: str | None = None
        self.setWindowTitle("segview")
        self.setAcceptDrops(True)
        self.undo_stack = QUndoStack(self)
        self._applying_undo = False
        self.evaluation_window = None
        self.annotation_window = None
        self.setGeometry(default_geometry(self._available_geometry()))
        self._build_plots()
        self._build_docks()
        self._build_penalty_dock()
        self._build_status_bar()
        self._build_menus()
        self._connect_runner()
        self._default_state = self.saveState()  # View > Reset layout goes back to it
        # panels the default layout keeps closed (the Penalty path): Reset layout leaves them so
        self._hidden_by_default = {t for t, d in self.docks.items() if d.isHidden()}
        self._layout_to_check = False
        geometry, state = self.settings.layout()
        if geometry is not None:
            self.restoreGeometry(geometry)
            self.setGeometry(clamp_to_screen(self.geometry(), self._available_geometry()))
        if state is not None:
            # kept only if the plot still gets its minimum size on this screen (checked once
            # the window is laid out: a layout saved on a big screen can squeeze it to 0 px)
            self._layout_to_check = self.restoreState(state)
        self._changed_since_last_run = self._describe_changed_params()
        if self._changed_since_last_run:
            self.post(self._changed_since_last_run)
        new_defaults = self._describe_new_default_methods(saved, fresh)
        if new_defaults:
            self.post(new_defaults)

    # the model's state, read by the mixins, the evaluation view and tests (writes go through
    # the model's intents: set_dataset, select_series, set_params, set_enabled, ...)
    series = property(lambda self: self.model.series)
    _by_id = property(lambda self: self.model.by_id)
    labels = property(lambda self: self.model.labels)
    annotations = property(lambda self: self.model.annotations)
    current = property(lambda self: self.model.current)
    current_benchmark = property(lambda self: self.model.current_benchmark)
    results = property(lambda self: self.model.results)
    status = property(lambda self: self.model.status)
    params = property(lambda self: self.model.params)
    enabled = property(lambda self: self.model.enabled)

    def _on_model_jobs_cancelled(self, tokens) -> None:
        """Jobs the model no longer wants (another dataset, series, parameters, an unticked
        method): the runner cancels them (a late answer would be dropped by the model anyway)."""
        for t in tokens:
            self.runner.cancel_lanes(keep_series=t.series_id, detector=t.method)

    def _available_geometry(self):
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry() if screen is not None else None

    def _describe_new_default_methods(self, saved: set[str] | None, fresh: set[str]) -> str:
        """Methods a fresh explorer now enables that the user's saved choice does not have and
        that were not defaults when the user last started the app: told once, never ticked (a
        saved choice of methods is the user's; no lane appears or vanishes silently)."""
        if not self.persist:
            return ""
        seen = self.settings.default_methods_seen()
        self.settings.set_default_methods_seen(fresh)
        if saved is None:
            return ""
        new = sorted(fresh - saved - (seen or set()))
        if not new:
            return ""
        labels = ", ".join(self.spec_by_name[n].label for n in new)
        why = "; Auto is segview's default change-point method" if "auto" in new else ""
        return (f"On in a fresh explorer since your saved choice of methods: {labels} "
                f"(tick it in Methods to see its lane{why})")

    def _describe_changed_params(self) -> str:
        """Methods whose restored parameters differ from their preset (told once at start-up)."""
        parts = []
        for s in self.specs:
            box = self.param_panel.boxes[s.name]
            names = box.changed_names()
            if names:
                base = "defaults" if box.preset == DEFAULTS else box.preset
                parts.append(f"{s.label} ({', '.join(f'{n}={self.params[s.name][n]!r}' for n in names)}"
                             f"; vs {base})")
        return ("Parameters restored from your last session differ from the defaults: "
                + "; ".join(parts) + ". Settings > Restore defaults resets them."
                if parts else "")

    # ------------------------------------------------------------------ building
    def _build_plots(self) -> None:
        self.plot_widget = pg.GraphicsLayoutWidget(self)
        self.layout_item = self.plot_widget.ci
        self.main_plot = pg.PlotItem(viewBox=XZoomViewBox())
        self.main_plot.setMinimumHeight(150)  # on a short screen the tracks shrink, not the series
        install_elided_title(self.main_plot)  # a long title never widens the plot
        self.main_plot.vb.menu_items = self._plot_menu_items
        self.series_plot = SeriesPlot(self.main_plot)
        self.plot_widget.addItem(self.main_plot, row=0, col=0)
        self.series_plot.on_hover(self._on_plot_hover)
        # full-height lines on the series: only the focused (or hovered) method's
        self.marks = {s.name: LaneMarkers(self.main_plot, self.colors[s.name], s.name, z=10 + i)
                      for i, s in enumerate(self.specs)}
        # every enabled method's result in a lane of its own under the series
        self.lanes = MethodLanes(self.main_plot, [(s.name, s.label, self.colors[s.name])
                                                  for s in self.specs])
        self.lanes.plot.vb.menu_items = self._plot_menu_items
        self.lanes.on_hover = self._on_lane_hovered
        self.lanes.on_click = self.show_method
        self.plot_widget.scene().sigMouseMoved.connect(self.lanes.scene_moved)
        self.plot_widget.scene().sigMouseClicked.connect(self.lanes.scene_clicked)
        self._pointer_watch = LeaveWatch(self.lanes.pointer_left, self.plot_widget)
        self.plot_widget.installEventFilter(self._pointer_watch)
        self.tracks = TrackStack(self.main_plot, on_threshold=self._on_threshold_dropped)
        self.tracks_shown = True
        self.overview = Overview(self.main_plot)
        self._shown_marks: str | None = None
        # a multi-execution benchmark: its executions as small multiples (or overlaid)
        self.bench_view = BenchmarkView([(s.name, s.label, self.colors[s.name])
                                         for s in self.specs], self)
        self.bench_view.execution_activated.connect(self._on_bench_view_execution_activated)
        self.bench_view.mode_changed.connect(self._on_bench_view_mode_changed)
        self.central = QStackedWidget(self)
        self.central.addWidget(self.plot_widget)
        self.central.addWidget(self.bench_view)
        self._sync_lanes()
        self.setCentralWidget(self.central)

    def _plot_menu_items(self) -> list:
        return [("View all", self.reset_zoom), ("Fit y to the samples in view", self.fit_y), None,
                ("Export plot…", self._on_export_plot),
                ("Hide diagnostic tracks" if self.tracks_shown else "Show diagnostic tracks",
                 lambda: self.show_tracks(not self.tracks_shown))]

    def _relayout(self) -> None:
        """Place main plot, method lanes, visible tracks and the overview in rows."""
        lay = self.layout_item
        for item in list(lay.items):
            lay.removeItem(item)
        lay.addItem(self.main_plot, row=0, col=0)
        rows = [self.lanes.plot] if self.lanes.order else []
        tracks = self.tracks.views() if self.tracks_shown else []
        for view in self.tracks.all_views():
            view.plot.setVisible(view in tracks)
        rows += [v.plot for v in tracks if not v.own_x]
        # tracks over another quantity than the samples (segneigh's criterion against the number
        # of segments) below the overview strip: the stack above it shares the series' x axis
        own = [v.plot for v in tracks if v.own_x]
        for i, plot in enumerate(rows, start=1):
            lay.addItem(plot, row=i, col=0)
            lay.layout.setRowStretchFactor(i, 0 if plot is self.lanes.plot else 1)
        lay.addItem(self.overview.plot, row=len(rows) + 1, col=0)
        lay.layout.setRowStretchFactor(0, 4)
        lay.layout.setRowStretchFactor(len(rows) + 1, 0)
        for i, plot in enumerate(own, start=len(rows) + 2):
            lay.addItem(plot, row=i, col=0)
            lay.layout.setRowStretchFactor(i, 1)
        # one x axis at the bottom of the stack: fewer axes to lay out and paint (tick text is the
        # most expensive part of a repaint); an own-axis track keeps its own
        for i, plot in enumerate(rows):
            last = i == len(rows) - 1
            plot.showAxis("bottom", last)
            plot.getAxis("bottom").setStyle(showValues=last)
        self.main_plot.showAxis("bottom", not rows)
        self.label_time_axes()  # track rows made since the series was shown get its dates too

    def _build_docks(self) -> None:
        self.dataset_panel = DatasetPanel(self)
        self.dataset_panel.model.set_methods(self.specs)
        self.dataset_panel.series_selected.connect(self._on_dataset_series_selected)
        self.dataset_panel.benchmark_selected.connect(self._on_dataset_benchmark_selected)
        self._add_dock("Series", self.dataset_panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        # the selected benchmark's warm-up classes and steady figures (issue 27)
        self.warmup_panel = WarmupPanel(self)
        saved_delta = self.settings.warmup_delta()
        if saved_delta is not None:
            self.warmup_panel.set_delta(*saved_delta)
        self.warmup_panel.rule_changed.connect(self._on_warmup_rule_changed)
        self.warmup_panel.delta_changed.connect(self._on_warmup_delta_changed)
        self.warmup_panel.open_benchmark.connect(self._on_warmup_open_benchmark)
        self.warmup_panel.open_execution.connect(self._on_bench_view_execution_activated)
        # scrolled: the panel's figures and table never set a minimum size that would take the
        # plot's room on a small screen (it shares its place with Series there)
        warmup_scroll = QScrollArea(self)
        warmup_scroll.setWidgetResizable(True)
        warmup_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        warmup_scroll.setWidget(self.warmup_panel)
        self._add_dock("Warm-up", warmup_scroll, Qt.DockWidgetArea.LeftDockWidgetArea
                       ).visibilityChanged.connect(self._on_warmup_dock_visibility)
        self.method_list = QListWidget(self)
        self.method_list.setToolTip("Tick a method to show its lane; select it to focus it (its "
                                    "lines on the series, its tracks); double click: its "
                                    "parameters. Colours match the plot")
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
        # results and runtimes wrap onto a second line in a narrow dock instead of being cut off
        self.method_list.setWordWrap(True)
        self.method_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.method_list.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.method_list.itemChanged.connect(self._on_method_item_changed)
        self.method_list.currentItemChanged.connect(self._on_method_list_current_changed)
        self.method_list.itemActivated.connect(  # double click / Enter: show its parameters
            lambda item: self.show_method(item.data(Qt.ItemDataRole.UserRole)))
        self._add_dock("Methods", self.method_list, Qt.DockWidgetArea.RightDockWidgetArea)
        self.param_panel = ParamPanel(self.specs, self)
        for s in self.specs:
            self.param_panel.boxes[s.name].set_preset(self.settings.preset(s) or DEFAULTS)
            self.param_panel.set_params(s.name, self.params[s.name])
            self.param_panel.set_method_visible(s.name, s.name in self.enabled)
        self.param_panel.params_changed.connect(self._on_param_panel_params_changed)
        self.param_panel.params_invalid.connect(self._on_param_panel_params_invalid)
        self.param_panel.preset_chosen.connect(self._on_param_panel_preset_chosen)
        self._add_dock("Parameters", self.param_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.messages = QListWidget(self)
        self.messages.setWordWrap(True)
        self.messages.setMinimumHeight(40)
        self.messages.setMaximumHeight(110)
        self._add_dock("Messages", self.messages, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._sized = False
        self._sync_table_columns()
        for s in self.specs:
            self._note_params(s.name)
        focus = self.settings.q.value("methods/focus")
        self.set_focus(str(focus) if focus else None)

    def _add_dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{title.lower()}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        if not hasattr(self, "docks"):
            self.docks: dict[str, QDockWidget] = {}
        self.docks[title] = dock
        return dock

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.hover_label = QLabel(self)
        bar.addPermanentWidget(self.hover_label)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(160)
        self.progress.setRange(0, 1000)
        self.progress.hide()
        self.progress_text = QLabel(self)  # the job's message beside the bar, not clipped inside it
        self.progress_text.hide()
        self.progress.setFormat("%p%")
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Cancel running detector jobs")
        self.cancel_button.clicked.connect(self.cancel_jobs)
        self.cancel_button.hide()
        bar.addPermanentWidget(self.progress_text)
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
        self._action(f, "Import table with column mapping…", self._on_import_table, None,
                     "read any CSV/TSV: say which columns hold benchmark, execution, value...")
        self._build_missing_values_menu(f)
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
        self._action(f, "&Quit", self.quit_all, QKeySequence.StandardKey.Quit,
                     "close every segview window and exit")
        e = mb.addMenu("&Edit")
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.Undo)])
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for act in (self.undo_action, self.redo_action):
            e.addAction(act)
            self.addAction(act)
        v = mb.addMenu("&View")
        self._action(v, "&Next series (execution)", self.next_series, [QKeySequence("Alt+Down")],
                     "the next series, or the next process execution of the benchmark")
        self._action(v, "&Previous series (execution)", self.previous_series,
                     [QKeySequence("Alt+Up")])
        self._action(v, "Next &benchmark", self.next_benchmark,
                     [QKeySequence("PgDown"), QKeySequence("Ctrl+Shift+Down")],
                     "the next benchmark (its executions in the benchmark view)")
        self._action(v, "Previous b&enchmark", self.previous_benchmark,
                     [QKeySequence("PgUp"), QKeySequence("Ctrl+Shift+Up")])
        self.overlay_action = self._action(
            v, "&Overlay a benchmark's executions", self.bench_view.set_overlaid, "Ctrl+L",
            "benchmark view: every execution in one plot instead of one above the other")
        self.overlay_action.setCheckable(True)
        self._action(v, "&Jump to series…", self._on_jump, "Ctrl+J")
        self._action(v, "&Reset zoom (view all)", self.reset_zoom,
                     [QKeySequence("Ctrl+0"), QKeySequence("Home")])
        self._action(v, "&Fit y to the samples in view", self.fit_y, "Ctrl+9")
        self.tracks_action = self._action(v, "Diagnostic &tracks", self.show_tracks, "Ctrl+T",
                                          "show or collapse the focused method's diagnostic tracks")
        self.tracks_action.setCheckable(True)
        self.tracks_action.setChecked(True)
        v.addSeparator()
        self._action(v, "Reset &layout", self.reset_layout, None,
                     "the default arrangement of the panels, sized for this screen")
        panels = v.addMenu("&Panels")
        for dock in self.docks.values():
            act = dock.toggleViewAction()
            act.setStatusTip(f"show or hide the {dock.windowTitle()} panel")
            panels.addAction(act)
        r = mb.addMenu("&Run")
        self._action(r, "Run enabled methods on &all series", self.run_on_all, "Ctrl+R")
        self._action(r, "&Cancel running jobs", self.cancel_jobs, "Esc")
        if self.penalty_panel is not None:
            self._action(r, "&Penalty path…", lambda: self.show_penalty_path(), "Ctrl+Shift+P",
                         "every segmentation of op/pelt over a range of penalties; a click "
                         "chooses one for the lane")
        self._action(r, "&Evaluate…", self.open_evaluation, "Ctrl+Shift+E",  # evaluation view hook
                     "compare onset methods with a truth on the loaded series")
        s = mb.addMenu("&Settings")
        self._action(s, "Restore &defaults", self.restore_faithful_defaults)
        h = mb.addMenu("&Help")
        self._action(h, "&Keyboard shortcuts", self._on_help_keys, [QKeySequence("F1")])
        self._action(h, "&About segview", lambda: show_about(self))

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
        r.warmup_ready.connect(self._on_runner_warmup_ready)
        r.warmup_failed.connect(self._on_runner_warmup_failed)

    # ------------------------------------------------------------------ messages
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

    def _on_help_keys(self) -> None:
        self.shortcuts_dialog = show_shortcuts(self, self.menuBar(), MOUSE_HELP)

    def _on_plot_hover(self, text: str) -> None:
        self.hover_label.setText(text)

    # ------------------------------------------------------------------ annotation mode hook
    def open_annotation(self) -> None:
        """Open the annotation window (segview.gui.annotate) on the files of the loaded series;
        when the session dialog is cancelled the window closes again (no empty annotator)."""
        from .annotate.window import AnnotationWindow

        paths = list(dict.fromkeys(str(s.metadata["source"]) for s in self.series
                                   if s.metadata.get("source")))
        self.annotation_window = AnnotationWindow(paths)
        self.annotation_window.show()
        QTimer.singleShot(0, self._ask_annotation_session)

    def _ask_annotation_session(self) -> None:
        win = self.annotation_window
        if win is not None and not win.ask_session() and win.session is None:
            win.close()

    # ------------------------------------------------------------------ evaluation view hook
    def open_evaluation(self) -> None:
        """Open the evaluation view (segview.gui.evaluate) on the loaded series and their labels."""
        from .evaluate.view import EvaluationWindow

        if self.evaluation_window is not None and self.evaluation_window.isVisible():
            self.evaluation_window.raise_()
            self.evaluation_window.activateWindow()
            return
        self.evaluation_window = EvaluationWindow(self)
        self.evaluation_window.show()

    def quit_all(self) -> None:
        """File > Quit: close every segview window (evaluation, annotation) and exit."""
        if self.close():
            app = QApplication.instance()
            if app is not None:
                app.closeAllWindows()
                app.quit()

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
        if self._layout_to_check:
            self._layout_to_check = False
            QTimer.singleShot(0, self, self._check_restored_layout)

    def plot_fits(self) -> bool:
        """Whether the plot area has at least its minimum size (MIN_PLOT_WIDTH x
        MIN_PLOT_HEIGHT)."""
        c = self.central
        return c.width() >= MIN_PLOT_WIDTH and c.height() >= MIN_PLOT_HEIGHT

    def window_fits_screen(self) -> bool:
        """Whether the whole window (frame included) fits the screen's available area: panels
        stacked with their minimum heights can make it taller than a small screen."""
        available = self._available_geometry()
        if available is None or available.isEmpty():
            return True
        frame = self.frameGeometry()
        return frame.width() <= available.width() and frame.height() <= available.height()

    def _check_restored_layout(self) -> None:
        """A restored layout that leaves the plot too small here, or makes the window larger
        than the screen, is replaced by the default."""
        if self.plot_fits() and self.window_fits_screen():
            self.layout_checked.emit(True)
            return
        if self.plot_fits():
            frame = self.frameGeometry()
            why = f"made the window {frame.width()}\u00d7{frame.height()} px, larger than this screen"
        else:
            why = (f"left the plot {self.central.width()}\u00d7{self.central.height()} px on "
                   "this screen")
        self.reset_layout()
        self.post(f"The saved panel layout {why}; the default layout is used "
                  "(View > Reset layout)")
        self.layout_checked.emit(False)

    def reset_layout(self) -> None:
        """View > Reset layout: the default panels, sized as fractions of the window."""
        self.restoreState(self._default_state)
        for title, dock in self.docks.items():
            dock.setFloating(False)
            dock.setVisible(title not in self._hidden_by_default)
        self.setGeometry(clamp_to_screen(self.geometry(), self._available_geometry()))
        QTimer.singleShot(0, self, self._initial_dock_sizes)  # once the restored state is laid out

    def _initial_dock_sizes(self) -> None:
        """Docks sized as fractions of the window, so they fit a small screen as well."""
        docks = {d.objectName(): d for d in self.findChildren(QDockWidget)}
        available = self._available_geometry()
        if available is not None and available.height() < SHORT_SCREEN:
            # a short screen (1280x720 at 150 %: 480 px): Series and Warm-up share one place as
            # tabs, so the window fits the screen's height
            self.tabifyDockWidget(docks["dock_series"], docks["dock_warm-up"])
            docks["dock_series"].raise_()
            self.layout().activate()  # the smaller minimum height first, then the fit
            top = self.geometry().y() - self.frameGeometry().y()  # the title bar
            bottom = self.frameGeometry().height() - self.height() - top
            self.setGeometry(clamp_to_screen(self.geometry(),
                                             available.adjusted(0, top, 0, -bottom)))
        w, h = self.width(), self.height()
        self.resizeDocks([docks["dock_messages"]], [max(50, h // 14)], Qt.Orientation.Vertical)
        left, right = max(220, w * 22 // 100), max(300, w * 27 // 100)
        spare = w - MIN_PLOT_WIDTH - 40  # a small screen: the side panels give way to the plot
        if left + right > spare:
            right = max(self.param_panel.minimumWidth(), spare * 55 // 100)
            left = max(docks["dock_series"].minimumSizeHint().width(), spare - right)
        self.resizeDocks([docks["dock_series"], docks["dock_parameters"]], [left, right],
                         Qt.Orientation.Horizontal)
        self.resizeDocks([docks["dock_methods"]], [min(22 * len(self.specs) + 12, h // 3)],
                         Qt.Orientation.Vertical)
        QTimer.singleShot(0, self, self._ensure_plot_room)

    def _ensure_plot_room(self) -> None:
        """Side panels narrower until the plot has MIN_PLOT_WIDTH (as far as their minimum
        widths allow)."""
        deficit = MIN_PLOT_WIDTH - self.central.width()
        if deficit <= 0:
            return
        left, right = self.docks["Series"], self.docks["Parameters"]
        lw, rw = left.width(), right.width()
        take_left = min(deficit * lw // max(1, lw + rw) + 1, lw - left.minimumSizeHint().width())
        take_right = min(deficit - take_left + 1, rw - right.minimumSizeHint().width())
        self.resizeDocks([left, right], [lw - max(0, take_left), rw - max(0, take_right)],
                         Qt.Orientation.Horizontal)

    def closeEvent(self, event) -> None:  # noqa: N802
        for child in (self.evaluation_window, self.annotation_window):
            try:
                if child is not None:
                    child.close()
            except RuntimeError:  # already deleted
                pass
        if self.persist:
            self.settings.save_layout(self.saveGeometry(), self.saveState())
            self.settings.set_enabled_methods(self.enabled)
            self.settings.sync()
        loader = self.__dict__.get("_loader")
        if loader is not None and not loader.shutdown(5000):
            log.warning("the background load did not stop within 5 s")
        if not self.runner.shutdown(2000):
            log.warning("some detector threads did not stop within 2 s")
        super().closeEvent(event)
