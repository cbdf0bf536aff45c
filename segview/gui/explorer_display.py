"""What the explorer shows (a mixin of :class:`~segview.gui.main_window.MainWindow`): the current
series, computing and drawing the detectors' overlays and tracks, the focused method, the method
list's status text, and the slots that take the job runner's results, failures and progress."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import Qt, QTimer, Slot

from ..core.benchmark import Benchmark, rollup_results
from ..core.evaluation.batch import partial_path
from ..core.explorer_model import WarmupKey, WarmupToken
from ..core.io.labels_csv import LabelRow
from ..core.limits import cost_warning
from ..core.model import Series
from ..core.registry import DetectorSpec
from ..core.result import DetectionResult
from ..core.warmup import BenchmarkWarmup
from . import cost_dialog
from .dataset_panel import NONE_SORT
from .jobs import Lane, Request
from .listitems import select_quietly
from .plots.labeled import label_axis_with_times
from .plots.lanes import short_label


class ExplorerDisplay:
    """Series, overlays, focus, runner slots. The state is the window's ``model``
    (:class:`~segview.core.explorer_model.ExplorerModel`; ``series``, ``current``, ``results``,
    ``status``, ``params``, ``enabled`` are read-only views of it, changed only through its
    intents: ``set_dataset``, ``select_series``, ``begin_job``, ``finish_job``,
    ``select_warmup``...). Needs the widgets (``series_plot``, ``overview``, ``lanes``,
    ``tracks``, ``method_list``, ``param_panel``, ``dataset_panel``, ``progress``,
    ``cancel_button``, ``warmup_panel``, ``bench_view``), ``runner``, ``post``, ``_relayout``,
    ``export_csv`` and the ``series_shown`` and ``overlay_updated`` signals."""

    # ------------------------------------------------------------------ series
    def set_dataset(self, series: list[Series], labels: dict[str, LabelRow] | None = None,
                    annotations: dict[str, dict[str, list[int]]] | None = None) -> None:
        # a new generation: the old dataset's jobs, results and evaluation overlay no longer
        # count (annotations: TCPD {series id: {annotator: [cp, ...]}})
        self.model.set_dataset(series, labels, annotations)
        self.runner.cancel_all()  # also the batch and the warm-up analysis
        self.runner.abandon_cancelled()  # a worker still busy with the old data is replaced
        self.runner.cache.clear()
        self.warmup_panel.clear()  # the model forgot the old dataset's warm-up analyses
        self.bench_view.set_classes(None)
        self.dataset_panel.model.set_dataset(self.series, self.labels)
        self.central.setCurrentWidget(self.plot_widget)
        if self.series:
            self.dataset_panel.select(self.series[0].id)

    def show_series(self, series_id: str) -> None:
        s = self._by_id[series_id]
        if self.current is not None and self.current.id == series_id:
            return
        self.model.select_series(series_id)  # the other series' jobs are cancelled
        self.central.setCurrentWidget(self.plot_widget)
        self.runner.cancel_lanes(keep_series=series_id)
        self.series_plot.set_series(s)
        self.overview.set_series(s)
        self._show_labeled_extras(s)
        lab = self.labels.get(s.id)
        ref = None if lab is None else lab.jagt_index
        self.series_plot.set_reference(ref, "reference" if ref is not None else "")
        self.lanes.set_reference(None if ref is None else self.series_plot.x_of(ref))
        for name in self.marks:
            self.marks[name].clear()
            self.lanes[name].clear()
        self.hover_label.setText("")  # the readout belonged to the previous series
        self.tracks.blank()
        i = self.series.index(s)
        steady = "" if lab is None or lab.steady is None else (
            ", labelled never steady" if not lab.steady else ", labelled steady (no onset)"
            if lab.jagt_index is None else f", labelled steady from {lab.jagt_index}")
        self.setWindowTitle(f"segview — {s.id} ({i + 1}/{len(self.series)}, n={len(s)}{steady})")
        # quickest first (by the last run time seen), so slow methods do not hold up the others;
        # one cost question for all of them
        self._compute_all(sorted((sp for sp in self.specs if sp.name in self.enabled),
                                 key=lambda sp: (sp.slow, self._runtime.get(sp.name, 0.0))),
                          immediate=True)
        if self.current is not s:
            return  # another series was shown while the cost question was open
        self._refresh_method_items()
        self.show_warmup(self.dataset_panel.model.benchmark_of(series_id))
        self.plot_widget.scene().prepareForPaint()  # one paint, not two (see _draw)
        self.series_shown.emit(series_id)

    def show_benchmark(self, name: str) -> None:
        """The benchmark view: every execution of a multi-execution benchmark, each with the
        enabled methods' lanes; detection runs on the job runner, results appear as they come."""
        b = self.dataset_panel.model.benchmark_named(name)
        if b is None:
            return
        if self.current_benchmark is not None and self.current_benchmark.name == name:
            return
        self.model.select_benchmark(b)
        self.runner.cancel_lanes(keep_series=[s.id for s in b.executions])
        for name_ in self.marks:  # the single-series view's marks belonged to another series
            self.marks[name_].clear()
            self.lanes[name_].clear()
        self.hover_label.setText("")
        self.bench_view.set_benchmark(b, [s.name for s in self.specs if s.name in self.enabled],
                                      self.tracks.focus)
        self.central.setCurrentWidget(self.bench_view)
        self.setWindowTitle(f"segview — {b.name} ({len(b)} executions, {b.harness})")
        for w in b.warnings:
            self.post(w)
        self._compute_benchmark(sorted((sp for sp in self.specs if sp.name in self.enabled),
                                       key=lambda sp: (sp.slow, self._runtime.get(sp.name, 0.0))))
        if self.current_benchmark is not b:
            return  # another view was chosen while the cost question was open
        self._refresh_method_items()
        self.show_warmup(b)
        self.benchmark_shown.emit(b.name)

    # ------------------------------------------------------------------ warm-up analysis
    def show_warmup(self, b: Benchmark | None) -> None:
        """The Warm-up panel on benchmark ``b`` with the chosen rule: the model's stored analysis
        at once, otherwise one is asked of the job runner (a worker process; never this
        thread). An analysis under way for another benchmark or rule is dropped (the model's
        ``warmup_cancelled``)."""
        dock = getattr(self, "docks", {}).get("Warm-up")
        if b is None or (dock is not None and dock.isHidden()):  # closed panel: no analysis
            self.model.select_warmup(None)
            self.warmup_panel.clear()
            self.bench_view.set_classes(None)
            return
        method = self.warmup_panel.method()
        params = self.warmup_panel.delta_params()
        key = (b.name, method, float(params["delta"]), str(params["delta_mode"]))
        if not self.model.select_warmup(key):
            return  # already under way (another execution of the same benchmark)
        self.warmup_panel.set_pending(b.name, len(b))
        cached = self.model.warmup_result(key)
        if cached is not None:
            self._show_warmup_result(cached)
            return
        self.bench_view.set_classes(None)
        self.runner.request_warmup(self.model.begin_warmup(), b, method, params)

    def _show_warmup_result(self, result: BenchmarkWarmup) -> None:
        self.warmup_panel.set_result(result)
        b = self.current_benchmark
        if b is not None and b.name == result.name:
            self.bench_view.set_classes({e.series_id: e.classification
                                         for e in result.executions},
                                        self.warmup_panel.rule.currentText())

    def _on_model_warmup_added(self, key: WarmupKey, result: BenchmarkWarmup) -> None:
        """An analysis of this dataset arrived: shown when it is what the panel is about."""
        if key == self.model.warmup_key:
            self._show_warmup_result(result)

    @Slot(object, object)
    def _on_runner_warmup_ready(self, token: WarmupToken, result: BenchmarkWarmup) -> None:
        self.model.finish_warmup(token, result)  # dropped when asked on another dataset

    @Slot(object, str)
    def _on_runner_warmup_failed(self, token: WarmupToken, text: str) -> None:
        if not self.model.fail_warmup(token):
            return  # the previous dataset's
        name, rule = token.key[:2]
        first = text.strip().splitlines()[-1] if text.strip() else "failed"
        self.post(f"Warm-up analysis of {name} ({rule}): {first}", tooltip=text)
        if token.key == self.model.warmup_key:
            self.warmup_panel.set_failed(name, text)

    def _warmup_benchmark(self) -> Benchmark | None:
        """The benchmark the panel is about: the one shown, or the shown execution's."""
        if self.current_benchmark is not None:
            return self.current_benchmark
        if self.current is not None:
            return self.dataset_panel.model.benchmark_of(self.current.id)
        return None

    @Slot(bool)
    def _on_warmup_dock_visibility(self, visible: bool) -> None:
        """The panel was opened again: analyse what is shown (nothing ran while it was closed)."""
        if visible and self.model.warmup_key is None:
            self.show_warmup(self._warmup_benchmark())

    @Slot(str)
    def _on_warmup_rule_changed(self, _method: str) -> None:
        self.model.select_warmup(None)  # asked again even if the key comes back
        self.show_warmup(self._warmup_benchmark())

    @Slot(float, str)
    def _on_warmup_delta_changed(self, value: float, unit: str) -> None:
        """A new delta: remembered in the settings, and the benchmark analysed again with it."""
        self.settings.set_warmup_delta(value, unit)
        self.model.select_warmup(None)  # asked again even if the key comes back
        self.show_warmup(self._warmup_benchmark())

    @Slot(str)
    def _on_warmup_open_benchmark(self, name: str) -> None:
        if not self.dataset_panel.select_benchmark(name):
            b = self.dataset_panel.model.benchmark_named(name)
            if b is not None and len(b) == 1:
                self.dataset_panel.select(b.executions[0].id)

    def _compute_benchmark(self, specs: Sequence[DetectorSpec]) -> None:
        """Request each of ``specs`` on every execution of the benchmark shown (cached ones
        drawn now); one cost question for all of them."""
        b = self.current_benchmark
        if b is None:
            return
        missing = [sp for sp in specs
                   if any(self.model.result(s.id, sp.name) is None for s in b.executions)]
        accepted = {sp.name for sp in self.cost_accepted(missing,
                                                         max(len(s) for s in b.executions))}
        if self.current_benchmark is not b:
            return  # another view was chosen while the cost question was open
        for spec in specs:
            if spec in missing and spec.name not in accepted:
                continue
            for s in b.executions:
                cached = self.model.result(s.id, spec.name)
                if cached is not None:
                    self._draw_in_benchmark(spec, s.id, cached)
                elif not (self.model.in_flight(s.id, spec.name)
                          and self.runner.in_flight((s.id, spec.name), self.params[spec.name])):
                    # (the execution shown before this view keeps its running jobs)
                    self.model.begin_job(s.id, spec.name)
                    self.runner.request(s, spec, self.params[spec.name], immediate=True)

    def _draw_in_benchmark(self, spec: DetectorSpec, sid: str, res: DetectionResult) -> None:
        onset = res.steady_start if spec.produces == "onset" else None
        if self.bench_view.set_result(sid, spec.name, [int(c) for c in res.change_points], onset):
            self._benchmark_status(spec)
            self.benchmark_result_drawn.emit(sid, spec.name)

    def _benchmark_status(self, spec: DetectorSpec) -> None:
        """The method list's text for the benchmark shown: its roll-up over the executions."""
        b = self.current_benchmark
        if b is None:
            return
        r = rollup_results(b, self._current_results(b, spec.name), [spec.name])[spec.name]
        self.model.set_status(spec.name, r.text(spec.produces))

    def _current_results(self, b: Benchmark, name: str) -> dict:
        out = {}
        for s in b.executions:
            res = self.model.result(s.id, name)
            if res is not None:
                out[(s.id, name)] = res
        return out

    def _update_rollup(self, sid: str, name: str) -> None:
        """Refresh the roll-up cell of the benchmark ``sid`` belongs to (multi-execution only)."""
        model = self.dataset_panel.model
        b = model.benchmark_of(sid)
        spec = self.spec_by_name.get(name)
        if b is None or len(b) < 2 or spec is None:
            return
        r = rollup_results(b, self._current_results(b, name), [name])[name]
        model.set_rollup(b.name, name, r.text(spec.produces), r.sort_key(spec.produces))

    def _show_labeled_extras(self, s: Series) -> None:
        """Annotators' change points (TCPD) on the series, and ``time.raw`` dates on the x axes."""
        ann = self.annotations.get(s.id, {})
        self.series_plot.annotations.set_annotations(ann, self.series_plot.x_of)
        self.label_time_axes(s)

    def label_time_axes(self, s: Series | None = None) -> None:
        """Dates of ``time.raw`` on every x axis of the stack and the overview strip (again after
        a relayout)."""
        s = s or self.current
        if s is None:
            return
        times = s.metadata.get("time")
        ok = isinstance(times, list) and len(times) == len(s) and s.x is None
        # the overview strip too: the same x axis as the plot above it (years under years)
        for plot in (self.main_plot, self.lanes.plot,
                     *(v.plot for v in self.tracks.all_views() if not v.own_x),
                     self.overview.plot):
            label_axis_with_times(plot.getAxis("bottom"), times if ok else None)

    def _compute(self, spec: DetectorSpec, immediate: bool = False) -> None:
        self._compute_all([spec], immediate)

    def _compute_all(self, specs: Sequence[DetectorSpec], immediate: bool = False) -> None:
        """Draw the cached results of ``specs`` on the series shown and request the others
        (one cost question for all of them, :meth:`cost_accepted`)."""
        series = self.current
        if series is None:
            if self.current_benchmark is not None:
                self._compute_benchmark(specs)
            return
        todo = []
        for spec in specs:
            cached = self.model.result(series.id, spec.name)
            if cached is not None:
                self._draw(spec, cached)
            else:
                todo.append(spec)
        accepted = self.cost_accepted(todo, len(series))
        if self.current is not series:
            return  # another series was shown while the cost question was open
        for spec in accepted:
            self.model.begin_job(series.id, spec.name)
            self.runner.request(series, spec, self.params[spec.name], immediate=immediate)

    def cost_accepted(self, specs: Sequence[DetectorSpec], n: int,
                      status: bool = True) -> list[DetectorSpec]:
        """The methods of ``specs`` to run on ``n`` samples. Those whose pre-run estimate
        (:mod:`segview.core.limits`) says minutes or gigabytes are asked about in one dialog for
        all of them (:func:`.cost_dialog.ask`): Run all, Skip slow ones (the others run) or
        Cancel (none runs). The answer for a method holds for these parameters until they
        change; a Cancel is not remembered. ``status``: the methods not run say so in the
        method list (the view shown is what they would have run on)."""
        answers = self.__dict__.setdefault("_cost_answers", {})
        notes: dict[str, str] = {}
        ask: list[DetectorSpec] = []
        for spec in specs:
            note = cost_warning(spec, n, self.params[spec.name])
            if note is None:
                continue
            notes[spec.name] = note
            key = (spec.name, self.params[spec.name])
            if key in answers:
                continue
            if "refused" in note:  # beyond what the method admits: never run, nothing to ask
                answers[key] = False
                self.post(f"Not run: {note}")
            else:
                ask.append(spec)
        if ask:
            choice = cost_dialog.ask(self, [(sp.label, notes[sp.name].removeprefix(f"{sp.name}: "))
                                            for sp in ask], n)
            if choice == cost_dialog.CANCEL:
                for spec in specs if status else ():
                    self.model.set_status(spec.name, "not run (cancelled)")
                self.post(f"Not run (cancelled): {', '.join(sp.label for sp in specs)}")
                return []
            for spec in ask:
                answers[(spec.name, self.params[spec.name])] = choice == cost_dialog.RUN_ALL
                if choice != cost_dialog.RUN_ALL:
                    self.post(f"Not run: {notes[spec.name]}")
        out = []
        for spec in specs:
            if spec.name in notes and not answers[(spec.name, self.params[spec.name])]:
                if status:
                    self.model.set_status(spec.name, "\u26a0 not run (cost)")
            else:
                out.append(spec)
        return out

    # ------------------------------------------------------------------ drawing and focus
    def _draw(self, spec: DetectorSpec, res: DetectionResult) -> None:
        sp = self.series_plot
        xs = [sp.x_of(c) for c in res.change_points]
        onset = res.steady_start if spec.produces == "onset" else None
        x_onset = None if onset is None else sp.x_of(onset)
        self.marks[spec.name].set_change_points(xs, sp.y_span())
        self.lanes[spec.name].set_change_points(xs, sp.y_span(), res.strengths,
                                                res.strength_label)
        for lane in (self.marks[spec.name], self.lanes[spec.name]):
            lane.set_onset(x_onset, sp.x_end())
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
        self.model.set_status(spec.name, f"{text} \u00b7 {res.runtime_ms:.0f} ms")
        self.lanes[spec.name].set_status(f"{text} \u00b7 {res.runtime_ms:.0f} ms")
        # settle auto-ranges now: done lazily inside the paint, a range change schedules a second
        # paint of the whole view right after the first
        self.plot_widget.scene().prepareForPaint()
        self.overlay_updated.emit(spec.name)

    def _clear_method(self, name: str) -> None:
        self.bench_view.clear_method(name)
        self.marks[name].clear()
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
        for lane_name, lane in self.marks.items():
            lane.set_emphasis(lane_name == name)
            self.lanes[lane_name].set_emphasis(lane_name == name)
        self._show_marks(name)
        self.bench_view.set_focus(name)
        for box_name, box in self.param_panel.boxes.items():
            box.setStyleSheet(f"QGroupBox::title {{ color: {self.colors[box_name]}; }}"
                              if box_name == name else "")
        if name is not None:  # no scrolling here: ticking a method must not move the panel
            select_quietly(self.method_list, name)
            if self.persist:
                self.settings.q.setValue("methods/focus", name)

    def _show_marks(self, name: str | None) -> None:
        """Full-height lines on the series for ``name`` only (the focused or hovered method)."""
        self._shown_marks = name
        for lane_name, marks in self.marks.items():
            marks.set_visible(lane_name == name and lane_name in self.enabled)

    def _sync_lanes(self) -> None:
        """One lane per enabled method, in the Methods list's order."""
        order = [s.name for s in self.specs if s.name in self.enabled]
        self.lanes.set_order(order)
        self.bench_view.set_order(order, self.tracks.focus)
        self._relayout()
        self._show_marks(self.tracks.focus)

    def _on_lane_hovered(self, name: str | None) -> None:
        self._show_marks(name if name is not None else self.tracks.focus)
        if name is not None:
            self.hover_label.setText(f"{self.spec_by_name[name].label}: "
                                     f"{self.status.get(name) or 'no result yet'} (click: focus)")
        elif "(click: focus)" in self.hover_label.text():
            self.hover_label.setText("")  # the lane's readout goes with the hover

    def show_method(self, name: str) -> None:
        """Focus ``name`` and bring its parameters into view (a click on its lane or its entry in
        the Methods list, a double click or Enter there). :meth:`set_focus` alone never scrolls:
        ticking a method must not move the panel."""
        self.set_focus(name)
        QTimer.singleShot(0, self._scroll_params_to_focus)

    def show_tracks(self, on: bool) -> None:
        """Show or collapse the focused method's diagnostic tracks."""
        self.tracks_shown = bool(on)
        if hasattr(self, "tracks_action"):
            self.tracks_action.setChecked(self.tracks_shown)
        self._relayout()

    def fit_y(self) -> None:
        from .plots.navigation import fit_y

        fit_y(self.main_plot)

    @Slot()
    def _scroll_params_to_focus(self) -> None:
        box = self.param_panel.boxes.get(self.tracks.focus or "")
        if box is not None and box.isVisible():
            self.param_panel.verticalScrollBar().setValue(box.y())

    def _refresh_method_items(self) -> None:
        self.method_list.blockSignals(True)
        for i in range(self.method_list.count()):
            item = self.method_list.item(i)
            name = item.data(Qt.ItemDataRole.UserRole)
            st = self.model.status_of(name)
            changed = bool(self.dataset_panel.model.notes.get(name))
            text = short_label(self.spec_by_name[name].label) + (" \u2022" if changed else "") \
                + (f" — {st}" if st else "")
            item.setText(text)
            # the shown series' result says what it rests on (e.g. a default that changed with
            # the method's version, how the data were scaled): its notes lead the tooltip
            res = self.results.get((self.current.id, name)) if self.current is not None else None
            notes = "".join(f"\n• {n}" for n in getattr(res, "notes", ()) or ())
            item.setToolTip(f"{self.spec_by_name[name].label}" + (f": {st}" if st else "")
                            + notes
                            + (f"\n\n{self.spec_by_name[name].description}"
                               if self.spec_by_name[name].description else ""))
        self.method_list.blockSignals(False)

    def _table_cell(self, spec: DetectorSpec, res: DetectionResult) -> tuple[str, float]:
        if spec.produces == "onset":
            if res.steady_start is None:
                return "never", NONE_SORT
            return str(res.steady_start), float(res.steady_start)
        return f"{len(res.change_points)} cp", float(len(res.change_points))


    # ------------------------------------------------------------------ runner slots
    @Slot(object, object)
    def _on_runner_result_ready(self, lane: Lane, res: DetectionResult) -> None:
        sid, name = lane
        spec = self.spec_by_name.get(name)
        if spec is None:
            return
        self._runtime[name] = res.runtime_ms
        if self.model.finish_job(sid, name, res) is None:
            return  # another dataset's, or other parameters': no live job asked for it
        self.dataset_panel.model.set_result(sid, name, *self._table_cell(spec, res))
        self._update_rollup(sid, name)
        if self.current is not None and sid == self.current.id and name in self.enabled:
            self._draw(spec, res)
        elif self.current_benchmark is not None and name in self.enabled:
            self._draw_in_benchmark(spec, sid, res)

    @Slot(object, str, bool)
    def _on_runner_job_failed(self, lane: Lane, text: str, recoverable: bool) -> None:
        sid, name = lane
        if self.model.fail_job(sid, name) is None:
            return  # a job the model had dropped (other data or parameters)
        spec = self.spec_by_name.get(name)
        label = spec.label if spec else name
        first = text.strip().splitlines()[-1] if text.strip() else "failed"
        kind = "" if recoverable else " (bug; details in the log)"
        self.post(f"{label} on {sid}: {first}{kind}", tooltip=text)
        self.dataset_panel.model.set_result(sid, name, "error", NONE_SORT)
        if self.current is not None and sid == self.current.id:
            self._clear_method(name)
            self.model.set_status(name, "\u26a0 error")

    @Slot(object, object)
    def _on_runner_job_started(self, lane: Lane, req: Request) -> None:
        # "running" only for a live job of a ticked method on what is shown
        if req.spec.slow and self.model.job_started(*lane):
            self.progress.setRange(0, 0)  # busy until the first progress report
            self._progress_message(f"{req.spec.label}: running")
            self.progress.show()
            self.cancel_button.show()

    @Slot(object, float, str)
    def _on_runner_progress(self, lane: Lane, fraction: float, message: str) -> None:
        if not self.model.in_flight(*lane):
            return  # a job the model dropped: its progress is not what is shown
        self.progress.setRange(0, 1000)
        self.progress.setValue(int(fraction * 1000))
        self._progress_message(f"{self.spec_by_name[lane[1]].label}: {message}".rstrip(": "))
        self.progress.show()
        self.cancel_button.show()

    def _progress_message(self, text: str) -> None:
        self.progress_text.setText(text)
        self.progress_text.setToolTip(text)
        self.progress_text.setVisible(bool(text))

    @Slot()
    def _on_runner_idle(self) -> None:
        self.progress.hide()
        self.progress_text.hide()
        self.cancel_button.hide()

    @Slot(str, str, object, object)
    def _on_runner_batch_item(self, sid: str, name: str, params: object, res: object) -> None:
        if not self.model.batch_result(sid, name, params, res):
            return  # a batch of the previous dataset
        spec = self.spec_by_name[name]
        if params == self.params[name]:
            self.dataset_panel.model.set_result(sid, name, *self._table_cell(spec, res))
            self._update_rollup(sid, name)
            if self.current_benchmark is not None and name in self.enabled:
                self._draw_in_benchmark(spec, sid, res)

    @Slot(str, str, str)
    def _on_runner_batch_failed(self, sid: str, name: str, text: str) -> None:
        if self.model.batch != self.model.generation:
            return
        self.post(f"{self.spec_by_name[name].label} on {sid}: {text}")
        self.dataset_panel.model.set_result(sid, name, "error", NONE_SORT)

    @Slot(float, str)
    def _on_runner_batch_progress(self, fraction: float, message: str) -> None:
        self.progress.setRange(0, 1000)
        self.progress.setValue(int(fraction * 1000))
        self._progress_message(f"all series: {message}".rstrip(": "))
        self.progress.show()
        self.cancel_button.show()

    @Slot(bool)
    def _on_runner_batch_finished(self, cancelled: bool) -> None:
        self.model.end_batch()
        self.post("Run on all series cancelled" if cancelled else "Run on all series finished")
        path, self._export_after_batch = self._export_after_batch, None
        if path and not cancelled:
            self.export_csv(path, all_series=True)
        elif path:  # keep what finished: written next to the chosen file, marked as partial
            self.export_csv(str(partial_path(path)), all_series=True, partial=True)
