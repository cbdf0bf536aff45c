"""Review mode: where the judges disagree, what each judge said, what the detectors find.

This is the only place where other judges' labels and detector overlays are drawn. The list of
disagreements comes from the session's aggregation (:func:`agreement.disagreements`) for the
steady-state protocol, and from differing change-point lists for the change-point protocol.
An adjudicator's labels (S / U / click and Enter, or "Accept consensus") are stored as adjudications, beside
the judges' labels (never over them).
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton,
                               QVBoxLayout, QWidget)

from ...core import registry
from ...core.annotation import agreement
from ...core.errors import RecoverableError
from ...core.model import Series
from ...core.params import coerce_params
from ...core.result import DetectionResult
from ..listitems import select_quietly

if TYPE_CHECKING:
    from .window import AnnotationWindow

log = logging.getLogger(__name__)

JUDGE_COLORS = ("#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8C564B", "#332288", "#117733",
                "#7F7F7F")
DETECTOR_COLORS = ("#882255", "#44AA99", "#999933", "#AA4499", "#6699CC")
#: proposed in review mode: each protocol's default method (``auto`` is segview's change-point default)
DEFAULT_DETECTORS = {"steady_state": ("kbkssd",), "change_points": ("auto",)}


def cp_disagreements(per_series: dict[str, dict[str, object]]) -> list[tuple[str, str]]:
    """Change-point protocol: series whose judges' lists differ, with a short reason."""
    out = []
    for sid, per in per_series.items():
        lists = {j: tuple(lab.change_points or ()) for j, lab in per.items()}
        if len(set(lists.values())) > 1:
            counts = ", ".join(f"{j}: {len(c)}" for j, c in lists.items())
            out.append((sid, f"change points differ ({counts})"))
    return out


class ReviewPanel(QWidget):
    """Side panel of the annotation window in review mode."""

    def __init__(self, window: "AnnotationWindow") -> None:
        super().__init__(window)
        self.window = window
        self.runner = None
        self.results: dict[str, DetectionResult] = {}
        self.consensus: dict[str, object] = {}
        self.colors: dict[str, str] = {}
        lay = QVBoxLayout(self)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        lay.addWidget(QLabel("<b>Disagreements</b> (click to open)"))
        self.disagreements = QListWidget()
        self.disagreements.setWordWrap(True)
        self.disagreements.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the window
        self.setMinimumWidth(340)
        self.disagreements.itemActivated.connect(self._on_item)
        self.disagreements.itemClicked.connect(self._on_item)
        lay.addWidget(self.disagreements, 2)
        lay.addWidget(QLabel("<b>Labels of this series</b>"))
        self.others = QLabel()
        self.others.setWordWrap(True)
        self.others.setTextFormat(Qt.TextFormat.RichText)
        self.others.setAlignment(Qt.AlignmentFlag.AlignTop)
        lay.addWidget(self.others, 1)
        lay.addWidget(QLabel("<b>Detector overlays</b>"))
        self.detectors = QListWidget()
        self.detectors.setMaximumHeight(120)
        self.detectors.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.detectors.itemChanged.connect(lambda _it: self._request_detectors())
        lay.addWidget(self.detectors)
        row = QHBoxLayout()
        self.accept_button = QPushButton("Accept consensus as decision")
        self.accept_button.setToolTip("adjudicators: store the aggregated label as your decision "
                                      "(beside the judges' labels)")
        self.accept_button.clicked.connect(self.accept_consensus)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        row.addWidget(self.accept_button)
        row.addWidget(refresh)
        lay.addLayout(row)
        self._fill_detectors()

    # ------------------------------------------------------------------ detectors
    def _fill_detectors(self) -> None:
        s = self.window.session
        wanted = "onset" if s.protocol == "steady_state" else "change_points"
        defaults = DEFAULT_DETECTORS[s.protocol]
        self.detectors.blockSignals(True)
        self.detectors.clear()
        for k, spec in enumerate(sp for sp in registry.all_specs()
                                 if sp.produces == wanted and not sp.slow):
            it = QListWidgetItem(spec.label or spec.name)
            it.setData(Qt.ItemDataRole.UserRole, spec.name)
            it.setFlags(it.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            it.setCheckState(Qt.CheckState.Checked if spec.name in defaults
                             else Qt.CheckState.Unchecked)
            self.colors[spec.name] = DETECTOR_COLORS[k % len(DETECTOR_COLORS)]
            self.detectors.addItem(it)
        self.detectors.blockSignals(False)

    def checked_detectors(self) -> list[str]:
        return [self.detectors.item(k).data(Qt.ItemDataRole.UserRole)
                for k in range(self.detectors.count())
                if self.detectors.item(k).checkState() == Qt.CheckState.Checked]

    def _request_detectors(self) -> None:
        series = self.window.current
        if series is None:
            return
        if self.runner is None:
            from ..jobs import JobRunner, shared_processes

            self.runner = JobRunner(self, processes=shared_processes())
            self.runner.result_ready.connect(self._on_result)
        self.runner.cancel_lanes(keep_series=series.id)
        for name in self.checked_detectors():
            spec = registry.get(name)
            if len(series) < (spec.min_length(coerce_params(spec.params, {}))
                              if callable(spec.min_length) else spec.min_length):
                continue
            self.runner.request(series, spec, coerce_params(spec.params, {}, name), immediate=True)
        self._draw()

    def _on_result(self, lane: tuple[str, str], res: DetectionResult) -> None:
        if self.window.current is not None and lane[0] == self.window.current.id:
            self.results[lane[1]] = res
            self._draw()

    def stop(self, shutdown: bool = False) -> None:
        if self.runner is not None:
            if shutdown:
                self.runner.shutdown()
            else:
                self.runner.cancel_all()

    # ------------------------------------------------------------------ content
    def refresh(self) -> None:
        """Recompute the aggregation and the disagreement list."""
        s = self.window.session
        scroll = self.disagreements.verticalScrollBar().value()
        self.disagreements.clear()
        try:
            if s.protocol == "steady_state":
                results = s.aggregate()
                votes = {sid: {j: bool(lab.steady) for j, lab in per.items()}
                         for sid, per in s.all_labels().items()}
                stats = agreement.summary(results, votes) if results else {}
                rows = [(d.series_id, f"[{d.severity}] " + "; ".join(d.reasons))
                        for d in agreement.disagreements(results)]
                self.consensus = {g.series_id: g for g in results}
                kappa = stats.get("fleiss_kappa")
                self.summary.setText(
                    f"{len(results)} series aggregated ({s.settings['rule']} rule, eps "
                    f"{s.settings['eps']:g})" + (
                        f"; Fleiss' κ = {kappa:.3f} over {stats.get('kappa_series')} series "
                        f"rated by all {stats.get('kappa_raters')} judges"
                        if isinstance(kappa, float) and kappa == kappa else ""))
            else:
                rows = cp_disagreements(s.all_labels())
                self.summary.setText(f"{len(s.all_labels())} series labelled by someone")
        except (RecoverableError, ValueError) as err:
            self.summary.setText(f"Aggregation not available: {err}")
            rows = []
        # a stable order: rows keep their place while the adjudicator works (a re-sort by
        # severity after each decision moved another series under the mouse); a settled one
        # stays, greyed, and new ones join at the end
        texts = dict(rows)
        order = getattr(self, "_row_order", [])
        self._row_order = order + [sid for sid, _ in rows if sid not in order]
        for sid in self._row_order:
            if sid in texts:
                it = QListWidgetItem(f"{sid}: {texts[sid]}")
            else:
                it = QListWidgetItem(f"{sid}: settled")
                it.setForeground(QColor("#8a8a8a"))
            it.setData(Qt.ItemDataRole.UserRole, sid)
            self.disagreements.addItem(it)
        if not self._row_order:
            self.disagreements.addItem("(none)")
        self.disagreements.verticalScrollBar().setValue(scroll)
        self._select_current()
        self.accept_button.setEnabled(self.window.judge.role == "adjudicator"
                                      and s.protocol == "steady_state")

    def _select_current(self) -> None:
        item = select_quietly(self.disagreements, self.window.series_id)
        if item is None:
            self.disagreements.clearSelection()
        else:
            self.disagreements.scrollToItem(item)

    def _on_item(self, item: QListWidgetItem) -> None:
        sid = item.data(Qt.ItemDataRole.UserRole)
        if sid:
            self.window.go_to_series(sid)

    def show_series(self, series: Series) -> None:
        self.accept_button.setText(f"Accept consensus as decision for {series.id}")
        self._select_current()
        self.results = {}
        self.refresh_labels()
        self._request_detectors()

    def refresh_labels(self) -> None:
        w = self.window
        try:
            self.visible = w.session.visible_labels(w.judge, w.series_id, review=True)
        except RecoverableError as err:
            self.visible = {}
            self.others.setText(f"not available: {err}")
            return
        names = [j.name for j in w.session.judges()]
        self.colors.update({n: JUDGE_COLORS[k % len(JUDGE_COLORS)] for k, n in enumerate(names)})
        lines = []
        for name, lab in self.visible.items():
            from .window import describe
            role = next((j.role for j in w.session.judges() if j.name == name), "judge")
            tag = " (adjudicator's decision)" if role == "adjudicator" else ""
            lines.append(f"<span style='color:{self.colors[name]}'>■</span> <b>{name}</b>{tag}: "
                         f"{describe(lab, w.session.protocol)}")
        gt = self.consensus.get(w.series_id)
        if gt is not None:
            if gt.steady is None:
                verdict = "tied vote (disputed): needs a decision"
            elif not gt.steady:
                verdict = f"unsteady ({gt.votes_steady} of {gt.votes_total} say steady)"
            elif gt.reference_index is None:
                verdict = "steady, no onset given"
            else:
                how = (f"cluster of {gt.cluster_size}: {', '.join(gt.agreeing_judges)}"
                       if gt.clustered else gt.method)
                verdict = f"steady from sample {gt.reference_index} ({how})"
            lines.append(f"<br><b>Consensus</b>: {verdict}")
        self.others.setText("<br>".join(lines) or "no other labels yet")
        self._select_current()
        self._draw()

    def _draw(self) -> None:
        w = self.window
        plot = w.plot
        plot.clear_overlays()
        for k, (name, lab) in enumerate(getattr(self, "visible", {}).items()):
            pos = 0.96 - 0.05 * (k % 8)
            if lab.change_points:
                plot.add_overlay_lines(lab.change_points, self.colors[name], name, position=pos)
            elif lab.steady and lab.onset is not None:
                plot.add_overlay_lines([lab.onset], self.colors[name], name, position=pos)
        for k, (name, res) in enumerate(self.results.items()):
            if name not in self.checked_detectors():
                continue
            xs = ([res.steady_start] if res.steady_start is not None else []) \
                if w.session.protocol == "steady_state" else list(res.change_points)
            plot.add_overlay_lines(xs, self.colors.get(name, "#444444"), f"{name} (detector)",
                                   style=Qt.PenStyle.DotLine, position=0.5 - 0.05 * k)

    def accept_consensus(self) -> None:
        w = self.window
        try:
            gt = next((g for g in w.session.aggregate() if g.series_id == w.series_id), None)
        except RecoverableError as err:
            w.show_error(f"Aggregation failed: {err}")
            return
        if gt is None or gt.steady is None:
            w.status("No consensus for this series (tied or unlabelled): decide with S / U / click and Enter")
            return
        w._record(steady=bool(gt.steady), onset=gt.reference_index if gt.steady else None)
        self.refresh()
        self.refresh_labels()
