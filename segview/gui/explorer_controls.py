"""The explorer's user intents (a mixin of :class:`~segview.gui.main_window.MainWindow`): selecting
and stepping through series, ticking and focusing methods, parameter edits, and running or
cancelling detector jobs."""
from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QInputDialog, QListWidgetItem

from ..core.params import Params
from .listitems import item_with_data
from .undo import ParamChange


class ExplorerControls:
    """What the user asks for, sent to the window's ``model`` as intents (``set_params``,
    ``set_enabled``, ``cancel_jobs``, ...; the model drops the jobs that no longer apply). Needs
    ``specs``, ``spec_by_name``, ``settings``, ``persist``, the model's read-only views, its
    widgets (``dataset_panel``, ``method_list``, ``param_panel``, ``series_plot``, ``lanes``,
    ``tracks``, ``progress``, ``cancel_button``), ``runner``, ``post`` and the display mixin's
    ``show_series``, ``_compute``, ``set_focus`` and ``_refresh_method_items``."""

    # ------------------------------------------------------------------ methods and parameters
    @Slot(str, object)
    def _on_param_panel_params_changed(self, name: str, params: Params) -> None:
        old = self.params.get(name)
        if params == old:
            return
        if not self._applying_undo and old is not None:
            self.undo_stack.push(ParamChange(name, self.spec_by_name[name].label, old, params,
                                             self._apply_params))
        self.model.set_params(name, params)  # its jobs with the old parameters are cancelled
        if self.persist:
            self.settings.set_params(self.spec_by_name[name], params)
        self.dataset_panel.model.clear_method(name)
        self._note_params(name)
        if name in self.enabled:
            self._compute(self.spec_by_name[name])

    def _note_params(self, name: str) -> None:
        """Mark the table column (and the method list) of a method with changed parameters."""
        defaults = self.spec_by_name[name].defaults()
        params = self.params[name]
        note = ", ".join(f"{k}={params[k]!r}" for k in params if params[k] != defaults.get(k))
        self.dataset_panel.model.set_method_note(name, note)
        self._refresh_method_items()  # "•" beside a method whose parameters are not the defaults

    def _apply_params(self, name: str, params: Params) -> None:
        """Show ``params`` in the panel and run with them (undo/redo; not pushed again)."""
        self._applying_undo = True
        try:
            self.param_panel.set_params(name, params, emit=True)
        finally:
            self._applying_undo = False
        spec = self.spec_by_name[name]
        self.post(f"{spec.label}: parameters now " + (", ".join(
            f"{k}={params[k]!r}" for k in self.param_panel.boxes[name].changed_names())
            or "as the preset"))

    @Slot(str, str)
    def _on_param_panel_preset_chosen(self, name: str, preset: str) -> None:
        if self.persist:
            self.settings.set_preset(self.spec_by_name[name], None if preset == "defaults" else preset)

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
        self.model.set_enabled(name, on)  # unticked: its jobs are cancelled, its status cleared
        if on:
            self._sync_lanes()
            self._compute(self.spec_by_name[name], immediate=True)
        else:
            self.runner.cancel_lanes(detector=name)  # also the batch-free lanes of other series
            self._sync_lanes()
            if self.tracks.focus == name:
                self.set_focus(None)
        if self.persist:
            self.settings.set_enabled_methods(self.enabled)
        self._sync_table_columns()
        self._refresh_method_items()

    def _on_method_list_current_changed(self, current: QListWidgetItem | None,
                                         _previous: QListWidgetItem | None) -> None:
        if current is not None:
            name = current.data(Qt.ItemDataRole.UserRole)
            if name in self.enabled:  # a click (or an arrow key): as a click on its lane
                self.show_method(name)

    def _sync_table_columns(self) -> None:
        for j, spec in enumerate(self.specs):
            self.dataset_panel.table.setColumnHidden(4 + j, spec.name not in self.enabled)

    def set_method_enabled(self, name: str, on: bool) -> None:
        """Show or hide a method (same as ticking it in the Methods list)."""
        item = item_with_data(self.method_list, name)
        if item is not None:
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    # ------------------------------------------------------------------ navigation
    @Slot(str)
    def _on_dataset_series_selected(self, series_id: str) -> None:
        self.show_series(series_id)

    @Slot(str)
    def _on_dataset_benchmark_selected(self, name: str) -> None:
        self.show_benchmark(name)

    @Slot(str)
    def _on_bench_view_execution_activated(self, series_id: str) -> None:
        self.dataset_panel.select(series_id)

    @Slot(bool)
    def _on_bench_view_mode_changed(self, overlaid: bool) -> None:
        self.overlay_action.setChecked(overlaid)

    def next_series(self) -> None:
        """The next series in the list, stepping through a benchmark's executions."""
        self.dataset_panel.step(+1)

    def previous_series(self) -> None:
        self.dataset_panel.step(-1)

    def next_benchmark(self) -> None:
        """The next benchmark (a multi-execution one opens in the benchmark view)."""
        self.dataset_panel.step_benchmark(+1)

    def previous_benchmark(self) -> None:
        self.dataset_panel.step_benchmark(-1)

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
        if self.current_benchmark is not None:
            self.bench_view.reset_view()
            return
        self.series_plot.reset_view()
        self.overview.sync()

    # ------------------------------------------------------------------ jobs and settings
    def run_on_all(self) -> bool:
        """Run every enabled method on every series (one cancellable batch job)."""
        work = [(s, self.params[s.name]) for s in self.specs if s.name in self.enabled]
        if not self.series or not work:
            return False
        longest = max(len(s) for s in self.series)
        accepted = {s.name for s in self.cost_accepted([s for s, _ in work], longest,
                                                        status=False)}
        work = [(s, p) for s, p in work if s.name in accepted]  # one question for the batch
        if not work:
            return False
        if not self.runner.run_batch(self.series, work):
            self.post("A run on all series is already in progress")
            return False
        self.model.begin_batch()
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        return True

    def cancel_jobs(self) -> None:
        loader = self.__dict__.get("_loader")  # Esc also stops a background load
        if loader is not None:
            loader.cancel()
        busy = self.runner.is_busy()
        self.model.cancel_jobs()  # "running" methods now say "cancelled"
        self.runner.cancel_all()
        # a worker process still computing a cancelled job (a kernel that does not look at the
        # cancel flag) is replaced, so the job really stops and its memory is given back
        self.runner.abandon_cancelled()
        if busy:
            self.post("Cancelled running jobs")

    def restore_faithful_defaults(self) -> None:
        self.settings.clear_params()
        self.undo_stack.beginMacro("Restore defaults")
        try:
            self.param_panel.reset_all()
        finally:
            self.undo_stack.endMacro()
        self.post("Restored the defaults of every method (Ctrl+Z undoes)")
