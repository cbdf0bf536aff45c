"""The annotation window: one judge labels a session's series, keyboard first.

Everything the judge does goes straight through :class:`~segview.core.annotation.session.AnnotationSession`
(committed before the screen changes; on a database error the screen is re-read from the store, so it
never shows a label that was not saved). Series come in the judge's seeded, stored order; the window
resumes at the series the judge opened last. Other judges' labels and detector overlays appear only
in review mode (:mod:`.review`), which is open to adjudicators, to judges who labelled every series,
and in sessions created without blinding.

Keyboard only: a cursor (dashed purple line) moves with Left/Right (Shift: 10, Ctrl: 100 samples),
Home/End; G types a sample index, Ctrl+J a series id; Enter (or O) sets the onset at the cursor (in
the change-point protocol: adds a change point there). Once a series has an onset the cursor sits on
it and the arrows move the onset (each move saved). S steady, U unsteady, N / PageDown next,
P / PageUp previous, K skip (comes back later), Ctrl+Z undo, Ctrl+Shift+Z or Ctrl+Y redo, R reset
the view. Change-point protocol: drag moves, Delete (nearest the mouse, else the cursor) or right
click removes, E = "looked, no change points".

A click saves nothing by itself (an accidental click is harmless): it puts a pending mark on the
nearest sample (the cursor, solid, "Enter saves · Esc discards"); Enter or O saves it as the onset
(adds the change point), Esc discards it, the arrows move it. What is confirmed is saved at once.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QApplication, QCompleter, QDockWidget, QHBoxLayout, QLabel,
                               QLineEdit, QMainWindow, QMessageBox, QVBoxLayout, QWidget)

from ...core.annotation.session import (AnnotationSession, Item, Judge, Label,
                                        check_judge_names)
from ...core.annotation.store import Store
from ...core.errors import DataFormatError, RecoverableError
from ...core.model import Series
from .actions import (CONFIDENCE_NAMES, CONFIDENCES, KEYS_HELP, LABEL_COLORS, LabelActions,
                      describe)
from .plot import AnnotationPlot, OverviewStrip
from ..plots.labeled import DimensionStack, overview_values

log = logging.getLogger(__name__)

__all__ = ["AnnotationWindow", "describe", "run"]


class _KeepKeys(QObject):
    """While the inline entry has focus, every key is its own (no window shortcut fires)."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()
        return False


CURSOR_STEPS = {"": 1, "Shift+": 10, "Ctrl+": 100}


class AnnotationWindow(LabelActions, QMainWindow):
    """Annotation mode. Open a session with :meth:`open_session` or :meth:`ask_session`."""

    series_shown = Signal(str)
    saved = Signal(str)  # the status text after each committed action
    failed = Signal(str)
    review_changed = Signal(bool)  # review mode on / off (also when it is refused: False)

    def __init__(self, paths: Sequence[str] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.paths = [str(p) for p in paths]
        self.store: Store | None = None
        self.session: AnnotationSession | None = None
        self.judge: Judge | None = None
        self.order: list[Item] = []
        self.pos = 0
        self.labels: dict[str, Label] = {}
        self._mine: set[int] = set()  # label / clear events this window made (what undo may undo)
        self.current: Series | None = None
        self.review_mode = False
        self.review = None  # ReviewPanel, built on first use
        self.message_box: QMessageBox | None = None
        self._loaded: list[Series] | None = None
        self.setWindowTitle("segview — annotate")
        from ..geometry import fit_window

        fit_window(self, (1300, 760))  # fits the screen (a 1280x720 laptop at 150 % included)
        self._build()
        self._build_actions()
        self._set_enabled(False)

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        central = QWidget(self)
        lay = QVBoxLayout(central)
        lay.setContentsMargins(6, 6, 6, 2)
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 14px; font-weight: 600")
        self.label_line = QLabel()
        self.label_line.setStyleSheet("font-size: 13px")
        self.progress = QLabel()
        self.progress.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.progress.setStyleSheet("font-size: 13px; font-weight: 600")
        top = QWidget()
        top_lay = QVBoxLayout(top)
        top_lay.setContentsMargins(0, 0, 0, 0)
        top_lay.setSpacing(2)
        self.review_badge = QLabel("REVIEW MODE")  # shown while review mode is on
        self.review_badge.setToolTip("Other judges' labels and detector overlays are shown "
                                     "(Ctrl+R leaves review mode)")
        self.review_badge.setStyleSheet("background: #6a1b9a; color: white; font-weight: 700; "
                                        "padding: 1px 6px; border-radius: 3px")
        self.review_badge.hide()
        row = QHBoxLayout()
        row.addWidget(self.title, 1)
        row.addWidget(self.progress)
        top_lay.addLayout(row)
        row = QHBoxLayout()  # the badge beside the (shorter) label line: the window stays as
        row.addWidget(self.label_line, 1)  # narrow as before (review dock included, 1280x720/150 %)
        row.addWidget(self.review_badge)
        top_lay.addLayout(row)
        lay.addWidget(top)
        self.plot = AnnotationPlot(central)
        self.dims = DimensionStack(self.plot.plotItem, self.plot.curve.opts["pen"])  # multivariate
        self.plot.describe_sample = self.dims.describe  # readout in the data's own units
        self.plot.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.plot.onset_picked.connect(self.set_onset)
        self.plot.pending_placed.connect(self._on_pending_placed)
        self.plot.change_points_edited.connect(self.set_change_points)
        self.plot.cursor_moved.connect(lambda text: self.cursor_label.setText(text))
        self.plot.plotItem.getViewBox().menu_items = self._plot_menu_items
        lay.addWidget(self.plot, 1)
        self.overview = OverviewStrip(self.plot, central)
        self.overview.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        lay.addWidget(self.overview)
        entry_row = QHBoxLayout()
        self.entry_label = QLabel()
        self.entry = QLineEdit()
        self.entry.setMaximumWidth(260)
        self.entry.setClearButtonEnabled(True)
        self._keep_keys = _KeepKeys(self)
        self.entry.installEventFilter(self._keep_keys)
        self.entry.returnPressed.connect(self._on_entry_return)
        self.entry.hide()
        self.entry_label.hide()
        self._entry_kind = ""
        entry_row.addWidget(self.entry_label)
        entry_row.addWidget(self.entry)
        entry_row.addStretch(1)
        lay.addLayout(entry_row)
        self.keys = QLabel()
        self.keys.setStyleSheet("color: #555")
        self.keys.setWordWrap(True)
        lay.addWidget(self.keys)
        self.setCentralWidget(central)
        self.cursor_label = QLabel()
        self.statusBar().addPermanentWidget(self.cursor_label)

    def _act(self, menu: object, text: str, slot: object, keys: Sequence[str] = (),
             checkable: bool = False) -> QAction:
        act = QAction(text, self)
        act.setShortcuts([QKeySequence(k) for k in keys])
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.setCheckable(checkable)
        act.triggered.connect(slot)
        menu.addAction(act)
        self.addAction(act)
        return act

    def _build_actions(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&Session")
        self._act(f, "&Open or create session…", self.ask_session, ["Ctrl+O"])
        self._act(f, "&Close", self.close, ["Ctrl+W", "Ctrl+Q"])  # the annotator is its own app
        lab = mb.addMenu("&Label")
        self.label_actions = [
            self._act(lab, "&Steady", self.mark_steady, ["S"]),
            self._act(lab, "&Unsteady", self.mark_unsteady, ["U"]),
            self._act(lab, "Onset (or change point) at the &cursor or the clicked sample",
                      self.act_at_cursor, ["Return", "Enter", "O"]),
            self._act(lab, "Discard the clicked sample (not saved)", self.discard_pending, ["Esc"]),
            *[self._act(lab, f"Cursor {step} sample{'s' if step > 1 else ''} "
                             f"{'left' if sign < 0 else 'right'} (moves a set onset)",
                        lambda _=False, d=sign * step: self.move_cursor(d),
                        [f"{mod}{'Left' if sign < 0 else 'Right'}"])
              for mod, step in CURSOR_STEPS.items() for sign in (-1, 1)],
            self._act(lab, "Cursor to the first sample", lambda: self.cursor_to(0), ["Home"]),
            self._act(lab, "Cursor to the last sample", lambda: self.cursor_to(10**12), ["End"]),
            self._act(lab, "&Go to sample index…", lambda: self.ask_entry("index"), ["G"]),
            self._act(lab, "Remove change point nearest the mouse (or cursor)", self.remove_change_point,
                      ["Delete"]),
            self._act(lab, "No change points (looked)", self.mark_no_change_points, ["E"]),
            self._act(lab, "&Clear (back to not labelled)", self.clear_label, ["Backspace"]),
            *[self._act(lab, f"Confidence {CONFIDENCE_NAMES[v]}",
                        lambda _=False, v=v: self.set_confidence(v), [k])
              for k, v in CONFIDENCES.items()],
        ]
        lab.addSeparator()
        self.undo_action = self._act(lab, "&Undo", self.undo, ["Ctrl+Z"])
        self.redo_action = self._act(lab, "&Redo", self.redo, ["Ctrl+Shift+Z", "Ctrl+Y"])
        go = mb.addMenu("&Go")
        self.nav_actions = [
            self._act(go, "&Next series", self.next_series, ["N", "PgDown"]),
            self._act(go, "&Previous series", self.previous_series, ["P", "PgUp"]),
            self._act(go, "S&kip (return later)", self.skip, ["K"]),
            self._act(go, "&Jump to series by id…", lambda: self.ask_entry("series"), ["Ctrl+J"]),
            self._act(go, "&Reset view", self.plot.reset_view, ["R"]),
        ]
        v = mb.addMenu("&Review")
        self.review_action = self._act(v, "&Review mode (others' labels, detectors)",
                                       self.toggle_review, ["Ctrl+R"], checkable=True)
        self.review_action.setStatusTip("Show the other judges' labels and detector overlays: "
                                        "for adjudicators, unblinded sessions, and judges who "
                                        "labelled all their series")
        h = mb.addMenu("&Help")
        self._act(h, "&Keyboard shortcuts", self._show_shortcuts, ["F1"])
        self._act(h, "&About segview", self._show_about)

    def _set_enabled(self, on: bool) -> None:
        for act in (*self.label_actions, *self.nav_actions, self.undo_action, self.redo_action,
                    self.review_action):
            act.setEnabled(on)

    def _show_shortcuts(self) -> None:
        from ..help_dialogs import show_shortcuts

        self.shortcuts_dialog = show_shortcuts(self, self.menuBar(), (
            ("Click on the plot", "marks the nearest sample, not saved: Enter or O saves it as the "
                                  "onset (change points: adds it), Esc discards it"),
            ("Drag a line", "move the onset / a change point"),
            ("Wheel / Ctrl+wheel", "zoom x / zoom y"), ("Drag the background", "pan x"),
            ("Click or drag on the overview", "move the view there")))

    def _show_about(self) -> None:
        from ..help_dialogs import show_about

        show_about(self)

    def _plot_menu_items(self) -> list | None:
        if self.session is not None and self.session.protocol == "change_points":
            return None  # right click removes a change point there
        from ..plots.navigation import fit_y

        return [("View all", self.plot.reset_view),
                ("Fit y to the samples in view", lambda: fit_y(self.plot.plotItem))]

    # ------------------------------------------------------------------ keyboard cursor
    def move_cursor(self, delta: int) -> None:
        """Arrows: move the cursor; a series' set onset moves with it (saved)."""
        if self.session is None or self.current is None:
            return
        self.cursor_to(self.plot.cursor + int(delta))

    def cursor_to(self, index: int) -> None:
        if self.session is None or self.current is None:
            return
        lab = self.labels.get(self.series_id)
        attached = (self.session.protocol == "steady_state" and lab is not None and lab.steady
                    and lab.onset is not None and self.plot.cursor == lab.onset
                    and self.plot.pending is None)  # a clicked mark moves, not the saved onset
        k = self.plot.set_cursor(index)
        if attached and k != lab.onset:
            self._record(steady=True, onset=k)
        elif self.plot.pending is not None:
            self._on_pending_placed(k)
        elif not attached:
            self.status(f"Cursor at sample {k}: Enter sets the "
                        + ("onset" if self.session.protocol == "steady_state" else "change point")
                        + " there")

    def _on_pending_placed(self, k: int) -> None:
        what = ("the onset" if self.session is not None and self.session.protocol == "steady_state"
                else "a change point")
        self.status(f"Sample {k} marked, not saved: Enter or O saves it as {what}, Esc discards it")

    def discard_pending(self) -> None:
        """Esc: forget a clicked sample that was not confirmed (the cursor goes back)."""
        k = self.plot.discard_pending()
        if k is not None:
            self.status(f"Click at sample {k} discarded; nothing saved")

    def act_at_cursor(self) -> None:
        """Enter / O: the onset (change-point protocol: a change point) at the cursor, which is
        where a pending click put it."""
        if self.session is None or self.current is None:
            return
        self.plot.take_pending()
        k = self.plot.cursor
        if self.session.protocol == "steady_state":
            self.set_onset(k)
        elif not self.plot.add_change_point(k):
            self.status(f"No change point added at {k} (already one there, or at the first sample)")

    def ask_entry(self, kind: str) -> None:
        """Show the inline entry: ``index`` (a sample of this series) or ``series`` (an id)."""
        if self.session is None:
            return
        self._entry_kind = kind
        self.entry.clear()
        if kind == "index":
            self.entry_label.setText(f"Go to sample (0..{max(self.plot.n - 1, 0)}), Enter:")
            self.entry.setCompleter(None)
            self.entry.setPlaceholderText("index")
        else:
            self.entry_label.setText("Go to series (id or position), Enter:")
            comp = QCompleter([it.series_id for it in self.order], self.entry)
            comp.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            comp.setFilterMode(Qt.MatchFlag.MatchContains)
            self.entry.setCompleter(comp)
            self.entry.setPlaceholderText("series id")
        self.entry_label.show()
        self.entry.show()
        self.entry.setFocus()

    def _close_entry(self) -> None:
        self.entry.hide()
        self.entry_label.hide()
        self.setFocus()

    def _on_entry_return(self) -> None:
        text = self.entry.text().strip()
        kind = self._entry_kind
        self._close_entry()
        if not text:
            return
        if kind == "index":
            try:
                k = int(float(text))
            except ValueError:
                self.status(f"Not a sample index: {text!r}")
                return
            self.cursor_to(k)
            return
        ids = [it.series_id for it in self.order]
        if text in ids:
            self.go_to_series(text)
        elif text.isdigit() and 1 <= int(text) <= len(ids):
            self.go_to(int(text) - 1)
        else:
            hits = [i for i in ids if text.lower() in i.lower()]
            if hits:
                self.go_to_series(hits[0])
            else:
                self.status(f"No series in this session matches {text!r}")

    def keyPressEvent(self, event: object) -> None:  # noqa: N802 (Qt override)
        if event.key() == Qt.Key.Key_Escape and self.entry.isVisible():
            self._close_entry()
            return
        super().keyPressEvent(event)

    # ------------------------------------------------------------------ messages
    def status(self, text: str) -> None:
        self.statusBar().showMessage(text)

    def show_error(self, text: str) -> None:
        """Report a problem without blocking (the window keeps running)."""
        log.warning("%s", text)
        self.status(text)
        if self.message_box is None:
            self.message_box = QMessageBox(QMessageBox.Icon.Warning, "segview annotate", "",
                                           QMessageBox.StandardButton.Ok, self)
        self.message_box.setText(text)
        self.message_box.open()
        self.failed.emit(text)

    # ------------------------------------------------------------------ sessions
    def ask_session(self, db: str | None = None, session: str | None = None,
                    judge: str | None = None) -> bool:
        """Ask for the database, session and judge (modal dialog), then open them."""
        from .session_dialog import SessionDialog

        current_db = db or (self.store.location.spec if self.store is not None else None)
        dlg = SessionDialog(current_db, self.paths, session, judge, self)
        if dlg.exec() != SessionDialog.DialogCode.Accepted:
            return False
        c = dlg.choice()
        return self.open_session(c.db, c.session, c.judge, role=c.role, create=c.create,
                                 protocol=c.protocol, paths=c.paths or self.paths,
                                 judges=c.judges, per_series=c.per_series)

    def open_session(self, db: str | None, session: str, judge: str, *, role: str = "judge",
                     create: bool = False, protocol: str = "steady_state",
                     paths: Sequence[str] | None = None, judges: Sequence[str] = (),
                     per_series: int | None = None) -> bool:
        """Open (or with ``create`` make, from ``paths``) a session for ``judge``; resume where the
        judge stopped. A new session starts with ``judges`` too (as ``session create --judge``),
        each series assigned to ``per_series`` of the judges when given (as ``-k``). Problems are
        shown in a message; returns False then."""
        try:
            store = Store(db or None)
        except RecoverableError as err:
            self.show_error(f"Cannot open the annotation database: {err}")
            return False
        try:
            if paths:
                self.paths = [str(p) for p in paths]
                self._loaded = None
            if create or session not in store.session_names():
                if not self.paths:
                    raise RecoverableError(f"session {session!r} is not in {store.display_url}; "
                                           "give data files to create it")
                check_judge_names([*judges, judge])  # before the session is written
                n_judges = len({*judges, *([judge] if role == "judge" else [])})
                if per_series is not None and not 1 <= per_series <= n_judges:
                    raise RecoverableError(f"each series to {per_series} judges needs 1 to "
                                           f"{n_judges} (the number of judges)")
                s = AnnotationSession.create(store, session, self._dataset(), protocol=protocol)
                s.add_judges(list(judges))
                if per_series is not None:
                    s.judge(judge, create=True, role=role)  # the user is dealt series too
                    s.assign(per_series)
            else:
                s = AnnotationSession.open(store, session)
                if self.paths:
                    changed = s.check_data(self._dataset())
                    if changed:
                        self.show_error(f"{len(changed)} series differ from the session's data "
                                        f"(e.g. {changed[0]}); the session's stored values are shown")
            j = s.judge(judge, create=True, role=role)
            order = s.order(j)
            labels = s.labels(j)
            last = s.last_visited(j)
        except RecoverableError as err:
            store.close()
            self.show_error(f"Cannot open session {session!r}: {err}")
            return False
        self._close_store()
        self.store, self.session, self.judge = store, s, j
        self.order, self.labels = order, labels
        self._mine = set()
        positions = {it.series_id: k for k, it in enumerate(order)}
        pos = positions.get(last) if last is not None else None
        if pos is None:
            pos = min(s.resume_position(j), len(order) - 1)
        self._update_title()
        self.keys.setText(KEYS_HELP[s.protocol])
        self._set_enabled(True)
        self.review_action.setChecked(False)
        self.set_review(False)
        self.go_to(pos)
        self.status(f"Database {store.display_url}; session {s.name} ({s.protocol}, "
                    f"{'blind' if s.blind else 'not blind'}); resumed at {self.order[pos].series_id}")
        return True

    def _dataset(self) -> list[Series]:
        if self._loaded is None:
            from ...core.io import load

            ds = load(self.paths)
            self._loaded = list(ds.series)
        return self._loaded

    def _close_store(self) -> None:
        if self.store is not None:
            self.store.close()
        self.store = self.session = self.judge = None

    # ------------------------------------------------------------------ navigation
    @property
    def series_id(self) -> str | None:
        return self.order[self.pos].series_id if self.order else None

    def go_to(self, pos: int, *, record_visit: bool = True) -> None:
        """Show the series at ``pos`` of the judge's order (and note the visit: resume point)."""
        assert self.session is not None and self.judge is not None
        self.pos = int(np.clip(pos, 0, len(self.order) - 1))
        item = self.order[self.pos]
        sid = item.series_id
        try:
            series = self._values_of(item)
            if record_visit:
                self.session.visit(self.judge, sid)
            # the stored labels, not this window's memory of them: another window of this judge
            # may have labelled the series meanwhile (shown before this window may act on it)
            self.labels = self.session.labels(self.judge)
        except RecoverableError as err:
            self.show_error(f"Cannot show {sid}: {err}")
            return
        self.current = series
        # a multivariate series: its dimensions stacked (the overview shows their scaled mean)
        self.plot.set_series(self.dims.display(series), self.session.protocol)
        self.overview.set_values(overview_values(series))
        self._show_label()
        if self.review_mode and self.review is not None:
            self.review.show_series(series)
        self.series_shown.emit(sid)

    def _values_of(self, item: Item) -> Series:
        """The session's stored values; else the loaded file's series if its content matches."""
        try:
            return self.session.series(item.series_id)
        except DataFormatError:
            if not self.paths:
                raise
            loaded = {s.id: s for s in self._dataset()}.get(item.series_id)
            if loaded is None or loaded.content_hash != item.content_hash:
                raise DataFormatError(item.series_id, "the session stores no values and the "
                                      "loaded files do not hold this series unchanged") from None
            return loaded

    def next_series(self) -> None:
        if self.pos + 1 < len(self.order):
            self.go_to(self.pos + 1)
        else:
            self._wrap("End of your list")

    def previous_series(self) -> None:
        if self.pos > 0:
            self.go_to(self.pos - 1)

    def skip(self) -> None:
        """Leave this series unlabelled for now; the next unlabelled one after it (it comes back
        once the end of the list wraps around)."""
        self._wrap(f"Skipped {self.series_id}")

    def _wrap(self, why: str) -> None:
        done = self.labels
        n = len(self.order)
        for k in range(1, n + 1):
            p = (self.pos + k) % n
            if self.order[p].series_id not in done and p != self.pos:
                self.go_to(p)
                self.status(f"{why}; next unlabelled: {self.order[p].series_id}")
                return
        self.status(f"{why}; every other series is labelled")

    def go_to_series(self, series_id: str) -> None:
        for k, it in enumerate(self.order):
            if it.series_id == series_id:
                self.go_to(k)
                return
        self.show_error(f"{series_id!r} is not one of your {len(self.order)} series"
                        + (" (the session assigns series to judges)" if self.session is not None
                           and self.judge is not None and self.session.assigned(self.judge)
                           is not None else ""))

    # ------------------------------------------------------------------ display
    def _show_label(self) -> None:
        assert self.session is not None
        sid = self.series_id
        lab = self.labels.get(sid)
        vals = overview_values(self.current) if self.current is not None else None
        self.title.setText(f"{sid}   ·   {self.pos + 1} of {len(self.order)} in your order   ·   "
                           f"n = {len(vals) if vals is not None else 0}")
        who = "Your decision" if self.judge is not None and self.judge.role == "adjudicator" \
            else "Your label"
        self.label_line.setText(f"{who}: {describe(lab, self.session.protocol, vals)}")
        color = LABEL_COLORS["none" if lab is None else "unsteady" if (
            self.session.protocol == "steady_state" and not lab.steady) else "done"]
        self.label_line.setStyleSheet(f"font-size: 13px; font-weight: 600; color: {color}")
        self.progress.setText(f"{len(self.labels)} / {len(self.order)} labelled")
        self.plot.take_pending()  # a saved (or refused) action ends a click's pending mark
        if self.session.protocol == "steady_state":
            onset = lab.onset if lab is not None and lab.steady else None
            self.plot.set_onset(onset)
            if onset is not None:  # the cursor sits on the onset: the arrows move it
                self.plot.set_cursor(onset, reveal=False)
        else:
            self.plot.set_change_points(lab.change_points or () if lab is not None else ())

    # ------------------------------------------------------------------ actions
    def review_allowed(self) -> tuple[bool, str]:
        if self.session is None or self.judge is None:
            return False, "no session"
        if self.judge.role == "adjudicator" or not self.session.blind:
            return True, ""
        if len(self.labels) >= len(self.order):
            return True, ""
        # short: the status line shares a 1280x720 screen at 150 % with the sample readout
        return False, (f"Blind session: review opens once all your series are labelled "
                       f"({len(self.labels)} / {len(self.order)})")

    def _update_title(self) -> None:
        s, j = self.session, self.judge
        if s is None or j is None:
            self.setWindowTitle("segview — annotate")
            return
        self.setWindowTitle(f"segview annotate — {s.name} — {j.name}"
                            + (" (adjudicator)" if j.role == "adjudicator" else "")
                            + (" — review mode" if self.review_mode else ""))

    def toggle_review(self, on: bool) -> None:
        """Ctrl+R / Review › Review mode: on or off, with the reason when it is not allowed."""
        ok, why = self.review_allowed()
        if on and not ok:
            self.review_action.setChecked(False)
            self.status(why)
            self.review_changed.emit(False)
            return
        self.set_review(on)
        if not on:
            self.status("Review mode off: only your own labels are shown")

    def set_review(self, on: bool) -> None:
        """Show or hide review mode; the menu check, the badge beside the title, the window title
        and the status line say which mode is on."""
        was = self.review_mode
        self.review_mode = bool(on)
        self.review_action.setChecked(self.review_mode)
        self.review_badge.setVisible(self.review_mode)
        self._update_title()
        if on:
            if self.review is None:
                from .review import ReviewPanel

                self.review = ReviewPanel(self)
                self.review_dock = QDockWidget("Review", self)
                self.review_dock.setObjectName("review")
                # no close button: Ctrl+R (or the Review menu) is the one way out, so the dock
                # never disappears while review mode stays on
                self.review_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                                             | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
                self.review_dock.setWidget(self.review)
                self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.review_dock)
            self.review_dock.show()
            self.review.refresh()
            self.status("Review mode on: you see every judge; your labels are stored as decisions"
                        if self.judge.role == "adjudicator" else
                        "Review mode on: other judges' labels and detectors are shown (Ctrl+R: off)")
            if self.current is not None:
                self.review.show_series(self.current)
        else:
            self.plot.clear_overlays()
            if self.review is not None:
                self.review.stop()
                self.review_dock.hide()
        if was != self.review_mode:
            self.review_changed.emit(self.review_mode)

    # ------------------------------------------------------------------ closing
    def closeEvent(self, event: object) -> None:  # noqa: N802 - Qt API
        if self.review is not None:
            self.review.stop(shutdown=True)
        self._close_store()
        super().closeEvent(event)


def run(paths: Sequence[str], db: str | None = None, session: str | None = None,
        judge: str | None = None, protocol: str = "steady_state") -> int:
    """Open the annotation window (the ``segview annotate`` command); returns the exit code.

    With ``session`` and ``judge`` the session opens at once (created from ``paths`` when it does not
    exist yet); otherwise, or when that fails, the session dialog asks.
    """
    import sys

    from PySide6.QtCore import QTimer

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "segview"])
    app.setOrganizationName("segview")
    app.setApplicationName("segview")
    window = AnnotationWindow(paths)
    window.show()
    opened = False
    if session and judge:
        opened = window.open_session(db, session, judge, protocol=protocol)
    if not opened:
        def ask() -> None:  # Cancel with no session open closes the (empty) window
            if not window.ask_session(db, session, judge) and window.session is None:
                window.close()

        QTimer.singleShot(0, ask)
    from ..quit_signals import install as quit_on_signals

    uninstall = quit_on_signals(app)  # kill PID / Ctrl+C close the window as Ctrl+Q does
    try:
        return int(app.exec())
    finally:
        uninstall()
        from ..gcguard import release

        release(window)  # deleted while the QApplication exists (see gcguard.release)
