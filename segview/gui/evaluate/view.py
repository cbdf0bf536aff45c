"""The evaluation window: choose a truth and methods, evaluate off the GUI thread, read the summary,
pairwise tests, per-series errors and plots, open a series in the explorer, export the report."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QSortFilterProxyModel, Qt, QThreadPool, Signal, Slot
from PySide6.QtWidgets import (QAbstractItemView, QFrame, QHeaderView, QLabel, QMainWindow,
                               QScrollArea, QSplitter, QTableView, QVBoxLayout, QWidget)

from ...core import registry
from ...core.errors import RecoverableError
from ...core.evaluation.batch import MethodSpec
from ...core.evaluation.cache import default_cache_dir
from ...core.evaluation.evaluate import EvaluationReport
from ...core.evaluation.inputs import (MethodEntry, label_onset_columns, onsets_from_labels,
                                       read_prediction_file, truth_from_labels, unique_name)
from ...core.evaluation.job import EvaluationOutcome, EvaluationRequest
from ...core.evaluation.metrics import TruthRow
from ...core.evaluation.tables import read_truth
from ...core.io.labels_csv import LabelRow
from ...core.model import Series
from .actions import EvaluationActions
from .overlay import ExplorerOverlay
from .panel import InputsPanel
from .plots import EvaluationPlots
from .tables import SORT_ROLE, SeriesErrorModel, SummaryModel, TestsModel
from .worker import EvaluationJob

log = logging.getLogger(__name__)
TABLE_MIN_WIDTH = 180
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8C564B", "#7F7F7F")


def _scrolled(content: QWidget) -> QScrollArea:
    """``content`` in a frameless scroll area: it fills the area, and scrolls once the area is
    smaller than the content's minimum size (small screens, large scale factors)."""
    area = QScrollArea()
    area.setWidget(content)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    return area


def _table(model: Any, sortable: bool = True) -> tuple[QTableView, QSortFilterProxyModel]:
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy.setSortRole(SORT_ROLE)
    view = QTableView()
    view.setModel(proxy)
    view.setSortingEnabled(sortable)
    view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(21)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    view.setAlternatingRowColors(True)
    return view, proxy


class EvaluationWindow(EvaluationActions, QMainWindow):
    """Evaluation of onset methods against a truth (segview.core.evaluation), with the explorer."""

    evaluated = Signal(object)  # EvaluationReport
    evaluation_failed = Signal(str)
    message_posted = Signal(str)

    def __init__(self, explorer: Any = None, series: list[Series] | None = None,
                 labels: dict[str, LabelRow] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("segview — evaluation")
        from ..geometry import fit_window

        fit_window(self, (1600, 950))
        self.explorer = explorer
        self.series: list[Series] = list(series if series is not None else
                                         (explorer.series if explorer is not None else []))
        self.labels: dict[str, LabelRow] = dict(labels if labels is not None else
                                                (explorer.labels if explorer is not None else {}))
        self.truth: dict[str, TruthRow] = {}
        self.truth_source = ""
        self.entries: list[MethodEntry] = []
        self.colors: dict[str, str] = {}
        self.outcome: EvaluationOutcome | None = None
        self.cache_dir: str | None = str(default_cache_dir())
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._job: EvaluationJob | None = None
        self._retired: list[EvaluationJob] = []
        self.overlay = ExplorerOverlay(explorer, self) if explorer is not None else None
        self._build()
        from PySide6.QtGui import QKeySequence, QShortcut

        # Ctrl+W closes it like the explorer's other windows (the annotator, dialogs)
        QShortcut(QKeySequence("Ctrl+W"), self, self.close)
        if self.labels:
            self.use_labels_truth()
            for col in label_onset_columns(self.labels):
                self.add_labels_column(col, checked=False)

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self.panel = InputsPanel(self._onset_specs(), self)
        p = self.panel
        p.labels_truth_button.clicked.connect(self.use_labels_truth)
        p.truth_file_button.clicked.connect(self._on_truth_file_clicked)
        p.add_file_button.clicked.connect(self._on_add_file_clicked)
        p.add_run_button.clicked.connect(self._on_add_run_clicked)
        p.remove_button.clicked.connect(self._on_remove_clicked)
        p.evaluate_button.clicked.connect(self.evaluate)
        p.cancel_button.clicked.connect(self.cancel)
        p.export_button.clicked.connect(self._on_export_clicked)
        p.figures_button.clicked.connect(self._on_figures_clicked)
        p.pair_combo.currentIndexChanged.connect(self._on_pair_changed)
        self.summary_model, self.tests_model = SummaryModel(self), TestsModel(self)
        self.series_model = SeriesErrorModel(self)
        self.summary_view, self.summary_proxy = _table(self.summary_model)
        self.tests_view, self.tests_proxy = _table(self.tests_model)
        self.series_view, self.series_proxy = _table(self.series_model)
        self.series_view.setToolTip("Click a series to open it in the explorer with the truth and "
                                    "the predictions drawn")
        self.series_view.clicked.connect(self._on_series_view_clicked)
        self.series_view.activated.connect(self._on_series_view_clicked)
        self.series_view.selectionModel().currentRowChanged.connect(
            self._on_series_view_current_changed)  # keyboard navigation follows in the explorer
        self.plots = EvaluationPlots(self)
        # the tables show a few rows at least; what the window cannot hold scrolls (a 1280x720
        # screen at 150 % is 853x480 logical pixels)
        row_h = self.summary_view.verticalHeader().defaultSectionSize()
        self._fit_summary()
        self.summary_view.horizontalScrollBar().rangeChanged.connect(self._fit_summary)
        for view in (self.series_view, self.tests_view):
            view.setMinimumSize(TABLE_MIN_WIDTH, view.horizontalHeader().sizeHint().height()
                                + 4 * row_h + view.horizontalScrollBar().sizeHint().height() + 4)
        results = QWidget(self)
        lay = QVBoxLayout(results)
        lay.setContentsMargins(4, 4, 4, 0)
        self.headline = QLabel("Choose a truth and methods, then Evaluate.", results)
        self.headline.setWordWrap(True)
        lay.addWidget(self.headline)
        lay.addWidget(self.summary_view)
        bottom = QSplitter(Qt.Orientation.Horizontal, results)
        bottom.setChildrenCollapsible(False)
        bottom.addWidget(self._titled("Per-series errors (click a row to open it in the explorer)",
                                      self.series_view))
        self.tests_title = QLabel("<b>Pairwise tests</b>", self)
        self.tests_title.setToolTip("Benjamini-Hochberg within each family of five tests; hover a "
                                    "row for the note of its test")
        bottom.addWidget(self._titled("", self.tests_view, self.tests_title))
        bottom.setSizes([820, 440])
        lower = QSplitter(Qt.Orientation.Vertical, results)
        lower.setChildrenCollapsible(False)  # a dragged handle never hides the plots or tables
        lower.addWidget(self.plots)
        lower.addWidget(bottom)
        lower.setSizes([300, 430])
        lay.addWidget(lower, 1)
        self.results_area = _scrolled(results)
        self.results_area.viewport().installEventFilter(self)  # the plots reflow to its width
        main = QSplitter(Qt.Orientation.Horizontal, self)
        main.setChildrenCollapsible(False)
        main.addWidget(self.panel)  # its inputs scroll; Evaluate and the exports stay in view
        main.addWidget(self.results_area)
        main.setStretchFactor(1, 1)
        main.setSizes([340, 1260])
        self.setCentralWidget(main)

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Resize and obj is self.results_area.viewport():
            self.plots.fit_width(event.size().width())  # four plots in a row, or two by two
        return super().eventFilter(obj, event)

    def _fit_summary(self, *_range: int) -> None:
        """The summary table as tall as its rows (two at least), and its scroll bar when the
        columns are wider than the window."""
        view = self.summary_view
        rows = max(self.summary_model.rowCount(), 2)
        bar = view.horizontalScrollBar()
        view.setFixedHeight(view.horizontalHeader().sizeHint().height()
                            + rows * view.verticalHeader().defaultSectionSize()
                            + 2 * view.frameWidth()
                            + (bar.sizeHint().height() if bar.maximum() > 0 else 0))

    def _titled(self, title: str, widget: QWidget, label: QLabel | None = None) -> QWidget:
        box = QWidget(self)
        lay = QVBoxLayout(box)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.setSpacing(2)
        label = label if label is not None else QLabel(f"<b>{title}</b>", box)
        label.setWordWrap(True)
        lay.addWidget(label)
        lay.addWidget(widget)
        return box

    @staticmethod
    def _onset_specs() -> list[Any]:
        return [s for s in registry.all_specs() if s.produces == "onset"]

    # ------------------------------------------------------------------ messages
    def post(self, text: str) -> None:
        """Show a message in the panel (and the explorer's Messages when there is one)."""
        self.panel.message.setText(text)
        self.statusBar().showMessage(text, 10000)
        log.info("evaluation: %s", text)
        if self.explorer is not None:
            self.explorer.post(f"Evaluation: {text}")
        self.message_posted.emit(text)

    # ------------------------------------------------------------------ truth
    def use_labels_truth(self) -> bool:
        """Truth from the labels of the loaded series (``labels.csv`` beside them)."""
        if self.explorer is not None and self.explorer.labels:
            self.labels = dict(self.explorer.labels)
        truth, skipped = truth_from_labels(self.labels)
        if not truth:
            self.post("The loaded series have no labels; choose a truth file")
            return False
        extra = f" ({len(skipped)} without a usable label skipped)" if skipped else ""
        return self._set_truth(truth, f"labels of the loaded series{extra}")

    def set_truth_file(self, path: str | Path) -> bool:
        """Truth from a CSV (``series_id,steady,reference_index,clustered`` or a labels.csv)."""
        try:
            truth = read_truth(path)
        except RecoverableError as err:
            self.post(f"Truth not read: {err}")
            return False
        return self._set_truth(truth, str(path))

    def _set_truth(self, truth: dict[str, TruthRow], source: str) -> bool:
        self.truth, self.truth_source = truth, source
        steady = sum(r.steady for r in truth.values())
        self.panel.truth_label.setText(f"{len(truth)} series ({steady} steady) from {source}")
        self.panel.truth_label.setToolTip(source)
        return True

    # ------------------------------------------------------------------ methods
    def _add_entry(self, entry: MethodEntry, checked: bool = True) -> None:
        entry.name = unique_name(entry.name, [e.name for e in self.entries])
        self.entries.append(entry)
        if entry.kind == "run" and self.explorer is not None and entry.spec is not None:
            color = self.explorer.colors.get(entry.spec.name)
        else:
            color = None
        used = set(self.colors.values())
        if color in used:  # the explorer's colour already marks another entry: a free one
            color = None
        self.colors[entry.name] = color or next((c for c in PALETTE if c not in used),
                                                PALETTE[len(self.colors) % len(PALETTE)])
        self.panel.add_item(entry.name, entry.describe(), self.colors[entry.name], checked)

    def add_prediction_file(self, path: str | Path) -> list[str]:
        """Add every onset method of a ``segview detect`` CSV; returns their names ([] on error)."""
        try:
            methods = read_prediction_file(path)
        except RecoverableError as err:
            self.post(f"Predictions not read: {err}")
            return []
        names = []
        for m, onsets in methods.items():
            self._add_entry(MethodEntry(m, "file", str(path), onsets=onsets))
            names.append(self.entries[-1].name)
        self.post(f"Added {', '.join(names)} from {Path(path).name}")
        return names

    def add_labels_column(self, column: str, checked: bool = True) -> str | None:
        onsets = onsets_from_labels(self.labels, column)
        if not onsets:
            self.post(f"No labels column {column!r}")
            return None
        self._add_entry(MethodEntry(column, "labels", column, onsets=onsets), checked)
        return self.entries[-1].name

    def add_run(self, detector: str) -> str | None:
        """Add a registered onset detector to run now with the explorer's current parameters."""
        try:
            spec = registry.get(detector)
        except RecoverableError as err:
            self.post(str(err))
            return None
        if spec.produces != "onset":
            self.post(f"{spec.label} detects change points, not a steady-state onset")
            return None
        self._add_entry(MethodEntry(spec.name, "run", spec.name, spec=spec))
        return self.entries[-1].name

    def checked_entries(self) -> list[MethodEntry]:
        by_name = {e.name: e for e in self.entries}
        return [by_name[n] for n in self.panel.checked_names() if n in by_name]  # list order

    def _current_params(self, entry: MethodEntry) -> Any:
        spec = entry.spec
        assert spec is not None
        if self.explorer is not None and spec.name in getattr(self.explorer, "params", {}):
            return self.explorer.params[spec.name]
        return spec.defaults()

    # ------------------------------------------------------------------ evaluation
    def is_running(self) -> bool:
        return self._job is not None

    def build_request(self) -> EvaluationRequest | None:
        entries = self.checked_entries()
        if not self.truth:
            self.post("Choose a truth first")
            return None
        if not entries:
            self.post("Tick at least one method")
            return None
        known, runs = {}, []
        for e in entries:
            if e.kind != "run":
                known[e.name] = e.onsets or {}
                continue
            params = self._current_params(e)
            if e.onsets is not None and e.params == params:
                known[e.name] = e.onsets
            else:
                runs.append((e.name, MethodSpec.of(e.spec, params)))  # type: ignore[arg-type]  # a 'run' entry always has a spec (MethodEntry.kind == 'run')
        return EvaluationRequest(truth=dict(self.truth), known=known, runs=tuple(runs),
                                 series=tuple(self.series), order=tuple(e.name for e in entries),
                                 mode=self.panel.scoring(), cache_dir=self.cache_dir)

    def evaluate(self) -> bool:
        """Start the evaluation job (runs pending detectors first); False when it cannot start."""
        if self._job is not None:
            self.post("An evaluation is already running")
            return False
        req = self.build_request()
        if req is None:
            return False
        job = EvaluationJob(req)
        job.signals.progress.connect(self._on_job_progress)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        job.signals.cancelled.connect(self._on_job_cancelled)
        self._job = job
        self._pending_params = {name: ms.params for name, ms in req.runs}
        self.panel.set_running(True, bool(req.runs))
        self.post("Running " + ", ".join(n for n, _ in req.runs) + " on "
                  f"{len(req.series)} series…" if req.runs else "Evaluating…")
        self.pool.start(job)
        return True

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def _job_ended(self) -> None:
        if self._job is not None:
            self._retired = [j for j in self._retired if not j.done.is_set()] + [self._job]
        self._job = None
        self.panel.set_running(False, False)

    @Slot(object, float, str)
    def _on_job_progress(self, _tag: object, fraction: float, message: str) -> None:
        self.panel.progress.setRange(0, 1000)
        self.panel.progress.setFormat(message)  # "done/total runs"
        self.panel.progress.setValue(int(round(1000 * fraction)))

    @Slot(object, object)
    def _on_job_finished(self, _tag: object, outcome: EvaluationOutcome) -> None:
        self._job_ended()
        for name, onsets in outcome.computed.items():
            entry = next(e for e in self.entries if e.name == name)
            entry.onsets, entry.params = onsets, self._pending_params.get(name)
        self.show_outcome(outcome)
        self.evaluated.emit(outcome.report)

    @Slot(object, str, bool)
    def _on_job_failed(self, _tag: object, text: str, recoverable: bool) -> None:
        self._job_ended()
        first = text.strip().splitlines()[-1] if text.strip() else "failed"
        self.post(f"Evaluation failed: {first}")
        self.evaluation_failed.emit(text)

    @Slot(object)
    def _on_job_cancelled(self, _tag: object) -> None:
        self._job_ended()
        self.post("Evaluation cancelled")
        self.evaluation_failed.emit("cancelled")

    # ------------------------------------------------------------------ results
    @property
    def report(self) -> EvaluationReport | None:
        return None if self.outcome is None else self.outcome.report

    def show_outcome(self, outcome: EvaluationOutcome) -> None:
        self.outcome = outcome
        r = outcome.report
        self.summary_model.set_report(r, self.colors)
        self.tests_model.set_report(r)
        pairs = self.tests_model.pairs()
        self.tests_view.setColumnHidden(0, len(pairs) == 1)
        one = f": {pairs[0][0]} vs {pairs[0][1]}" if len(pairs) == 1 else ""
        self.tests_title.setText(f"<b>Pairwise tests{one}</b> (bold: BH p &lt; 0.05)" if pairs else
                                 "<b>Pairwise tests</b> (need two methods with scored series)")
        self.series_model.set_data(outcome.truth, outcome.predictions, r.methods,
                                   {m: r.errors[m].series_ids for m in r.methods})
        self._fit_summary()
        self.panel.set_pairs(r.methods)
        self.plots.set_report(r, self.colors, self.panel.pair())
        mode = ("series where the truth and every method say steady" if r.mode == "joint"
                else "each method's own steady series")
        notes = [f"{r.n_series} series; errors e = truth - predicted (samples) over {mode}; "
                 f"all agree with the truth on {r.total_agreements}, all wrong alike on "
                 f"{r.method_agreements}."]
        if outcome.dropped:
            notes.append(f"{len(outcome.dropped)} truth series without a prediction from every "
                         f"method left out (e.g. {outcome.dropped[0]}).")
        if outcome.failures:
            notes.append(f"{len(outcome.failures)} runs failed (first: {outcome.failures[0]}).")
        self.headline.setText(" ".join(notes))
        if self.overlay is not None:
            self.overlay.set_data(outcome.truth, outcome.predictions, self.colors)
        self.post(f"Evaluated {', '.join(r.methods)} on {r.n_series} series")

    @Slot(int)
    def _on_pair_changed(self, _index: int) -> None:
        if self.report is not None:
            self.plots.set_report(self.report, self.colors, self.panel.pair())

    @Slot(QModelIndex)
    def _on_series_view_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.open_series(self.series_model.series_id(self.series_proxy.mapToSource(index).row()))

    @Slot(QModelIndex, QModelIndex)
    def _on_series_view_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid() and self.series_view.hasFocus():
            self._on_series_view_clicked(current)

    def open_series(self, series_id: str) -> bool:
        """Show ``series_id`` in the explorer with the truth and the predictions drawn."""
        ex = self.explorer
        if ex is None:
            self.post("Open the evaluation from the explorer to view series")
            return False
        if not ex.dataset_panel.select(series_id):
            self.post(f"{series_id} is not loaded in the explorer")
            return False
        if self.overlay is not None:
            self.overlay.draw(series_id)
        ex.raise_()
        return True

    def closeEvent(self, event: Any) -> None:  # noqa: N802
        self.cancel()
        self.pool.waitForDone(5000)
        self._retired.clear()
        if self.overlay is not None:
            self.overlay.detach()
            self.overlay = None
        super().closeEvent(event)

