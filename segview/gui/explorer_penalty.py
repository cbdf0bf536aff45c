"""The explorer's Penalty path dock (issue 28 point 3): wiring between the panel, the job runner,
the parameter panel and the lanes. The panel draws; the core computes
(:func:`segview.core.penalty_path.penalty_path`); choosing a point sets the method's ``penalty``
through the parameter panel, so the lane re-runs as after any edit (debounced, undoable)."""
from __future__ import annotations

from PySide6.QtCore import Qt, Slot

from ..core.penalty_path import PATH_METHODS
from .penalty_path_panel import PenaltyPathPanel


class ExplorerPenaltyPath:
    """Mixin of the main window; needs ``specs``, ``params``, ``current``, ``enabled``,
    ``runner``, ``param_panel``, ``method_list``, ``series_shown`` and ``_add_dock``."""

    def _build_penalty_dock(self) -> None:
        methods = [s.name for s in self.specs if s.name in PATH_METHODS]
        self.penalty_panel: PenaltyPathPanel | None = None
        self._penalty_key: object = None
        if not methods:
            return
        panel = PenaltyPathPanel(methods, self)
        self.penalty_panel = panel
        dock = self._add_dock("Penalty path", panel, Qt.DockWidgetArea.RightDockWidgetArea)
        dock.hide()  # Panels > Penalty path, or Run > Penalty path
        dock.visibilityChanged.connect(self._on_penalty_dock_visibility_changed)
        panel.segmentation_chosen.connect(self._on_penalty_segmentation_chosen)
        panel.method_changed.connect(self._on_penalty_method_changed)
        self.series_shown.connect(self._on_penalty_series_shown)
        self.param_panel.params_changed.connect(self._on_penalty_params_changed)
        self.runner.path_ready.connect(self._on_runner_path_ready)
        self.runner.path_failed.connect(self._on_runner_path_failed)

    def show_penalty_path(self, method: str | None = None) -> None:
        """Open the Penalty path dock (for ``method``, or the focused penalised method)."""
        if self.penalty_panel is None:
            return
        focus = method or self.tracks.focus
        if focus in PATH_METHODS:
            self.penalty_panel.set_method(focus)
        dock = self.docks["Penalty path"]
        dock.show()
        dock.raise_()
        self._penalty_refresh()

    def _lane_penalty(self, method: str) -> float | None:
        value = self.params[method]["penalty"]
        return None if isinstance(value, str) or value is None else float(value)

    def _penalty_refresh(self, force: bool = False) -> None:
        panel = self.penalty_panel
        if panel is None or not self.docks["Penalty path"].isVisible():
            return
        if self.current is None:
            self._penalty_key = None
            panel.set_pending("Open a series to see its penalty path.")
            return
        method = panel.method()
        params = self.params[method]
        key = (self.current.id, method,
               tuple(sorted((k, repr(v)) for k, v in params.items() if k != "penalty")))
        if key == self._penalty_key and not force:
            panel.mark_penalty(self._lane_penalty(method))
            return
        self._penalty_key = key
        panel.set_pending(f"Computing the penalty path of {method} on {self.current.id}\u2026")
        self.runner.request_path(key, self.current, method, dict(params))

    @Slot(bool)
    def _on_penalty_dock_visibility_changed(self, visible: bool) -> None:
        if visible:
            self._penalty_refresh()

    @Slot(str)
    def _on_penalty_series_shown(self, _series_id: str) -> None:
        self._penalty_refresh()

    @Slot(str)
    def _on_penalty_method_changed(self, _method: str) -> None:
        self._penalty_refresh()

    @Slot(str, object)
    def _on_penalty_params_changed(self, method: str, _params: object) -> None:
        if self.penalty_panel is not None and method == self.penalty_panel.method():
            self._penalty_refresh()

    @Slot(object, object)
    def _on_runner_path_ready(self, key: object, path: object) -> None:
        if self.penalty_panel is not None and key == self._penalty_key:
            self.penalty_panel.set_path(path, self._lane_penalty(path.method))

    @Slot(object, str)
    def _on_runner_path_failed(self, key: object, text: str) -> None:
        if self.penalty_panel is not None and key == self._penalty_key:
            self.penalty_panel.set_failed(text)

    @Slot(str, float)
    def _on_penalty_segmentation_chosen(self, method: str, penalty: float) -> None:
        if method not in self.enabled:  # its lane shows the choice: switch it on
            for i in range(self.method_list.count()):
                item = self.method_list.item(i)
                if item.data(Qt.ItemDataRole.UserRole) == method:
                    item.setCheckState(Qt.CheckState.Checked)
        self.param_panel.set_value(method, "penalty", penalty)
