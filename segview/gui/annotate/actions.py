"""The labelling actions of the annotation window (a mixin) and how labels read in words.

Every action commits through the session before the screen changes; on a database error the
window shows a message and re-reads the judge's labels from the store.

Several windows (or machines) may work as the same judge. Each action is optimistic: it carries the
label this window shows (``expect``), and when the stored label is newer (changed in another
window) the action is refused, the window says so and shows the newer label; the judge's next
action then replaces it knowingly. Undo / redo only touch this window's own actions (``_mine``).
"""
from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ...core.annotation.session import Label
from ...core.errors import RecoverableError, StaleLabelError

KEYS_HELP = {
    "steady_state": "←/→ cursor (Shift ×10, Ctrl ×100) · Home/End · G type an index · Enter/O onset at"
                    " cursor (then ←/→ move it) · click: mark a sample, then Enter/O saves it, Esc"
                    " discards · S steady · U unsteady · 1/2/3 confidence · N/P next/previous ·"
                    " Ctrl+J go to series · K skip · Ctrl+Z / Ctrl+Shift+Z undo/redo · R reset view ·"
                    " wheel: zoom x · F1 all keys",
    "change_points": "←/→ cursor (Shift ×10, Ctrl ×100) · Home/End · G type an index · Enter/O change"
                     " point at cursor · click: mark a sample, then Enter/O adds it, Esc discards ·"
                     " drag: move · Delete: remove nearest the mouse (else the cursor) · right click:"
                     " remove · E none · 1/2/3 confidence · N/P next/previous · Ctrl+J go to series ·"
                     " K skip · Ctrl+Z / Ctrl+Shift+Z undo/redo · R reset view · F1 all keys",
}

CONFIDENCES = {"1": 1 / 3, "2": 2 / 3, "3": 1.0}  # keys 1..3: low, medium, high
CONFIDENCE_NAMES = {1 / 3: "low", 2 / 3: "medium", 1.0: "high"}
LABEL_COLORS = {"none": "#7a7a7a", "unsteady": "#b3261e", "done": "#0b6e4f"}


def describe(label: Label | None, protocol: str, values: np.ndarray | None = None) -> str:
    """A label in words (for the label line and the status line)."""
    if label is None:
        return "not labelled yet"
    conf = "" if label.confidence is None else \
        f" · confidence {CONFIDENCE_NAMES.get(label.confidence, f'{label.confidence:g}')}"
    if protocol == "change_points":
        cps = label.change_points or ()
        return (f"{len(cps)} change point(s): {', '.join(map(str, cps))}" if cps
                else "no change points") + conf
    if not label.steady:
        return "unsteady (never reaches a steady state)" + conf
    if label.onset is None:
        return "steady — click the first steady sample, then Enter" + conf
    value = "" if values is None or label.onset >= len(values) else \
        f" (value {values[label.onset]:.6g})"
    return f"steady from sample {label.onset}{value}" + conf


class LabelActions:
    """S / U / onset / nudge / change points / confidence / clear / undo / redo.

    Mixed into :class:`~.window.AnnotationWindow`, which provides ``session``, ``judge``,
    ``labels``, ``order``, ``pos``, ``series_id``, ``plot``, ``status``, ``show_error``,
    ``go_to_series``, the ``saved`` signal and ``_show_label``.
    """

    def _record(self, **label: object) -> bool:
        """Commit a label of the current series; refresh from the store either way."""
        assert self.session is not None and self.judge is not None
        sid = self.series_id
        prev = self.labels.get(sid)
        if "confidence" not in label and prev is not None and prev.confidence is not None:
            label["confidence"] = prev.confidence  # a correction keeps the stated confidence
        expect = prev.event_id if prev is not None else None  # what this window shows
        try:
            if self.judge.role == "adjudicator":
                eid = self.session.adjudicate(self.judge, sid, expect=expect, **label)
            else:
                eid = self.session.record(self.judge, sid, expect=expect, **label)
        except StaleLabelError as err:
            self._stale(err)
            return False
        except RecoverableError as err:
            self.show_error(f"Not saved: {err}")
            self._refresh()
            return False
        self._mine.add(eid)
        self._refresh()
        text = (f"Saved {time.strftime('%H:%M:%S')}: {sid} "
                f"{describe(self.labels.get(sid), self.session.protocol)} (event {eid})")
        self.status(text)
        self.saved.emit(text)
        return True

    def _stale(self, err: StaleLabelError) -> None:
        """Another window of this judge changed the label: say so, and show the newer label."""
        now = describe(err.current, self.session.protocol)  # type: ignore[arg-type]  # StaleLabelError.current is a Label or None, typed object in the Qt-free errors module
        self._refresh()
        self.show_error(f"Not saved: your label of {err.series_id} was changed in another window "
                        f"(or on another machine) since this window showed it. It is now: {now}. "
                        "That label is shown here now; repeat your action to replace it.")

    def _refresh(self) -> None:
        try:
            self.labels = self.session.labels(self.judge)
        except RecoverableError as err:
            self.show_error(f"Cannot read the labels: {err}")
        self._show_label()
        if self.review_mode and self.review is not None:
            self.review.refresh()
            self.review.refresh_labels()

    def _protocol(self, protocol: str) -> bool:
        ok = self.session is not None and self.session.protocol == protocol
        if self.session is not None and not ok:
            self.status(f"Not available in the {self.session.protocol} protocol")
        return ok

    def mark_steady(self) -> None:
        """S: steady, from a clicked (pending) sample if there is one, else from the stored onset."""
        if self._protocol("steady_state"):
            lab = self.labels.get(self.series_id)
            onset = self.plot.take_pending()
            if onset is None:
                onset = lab.onset if lab is not None and lab.steady else None
            self._record(steady=True, onset=onset)

    def mark_unsteady(self) -> None:
        if self._protocol("steady_state"):
            self._record(steady=False)

    def set_onset(self, index: int) -> None:
        if self._protocol("steady_state"):
            self._record(steady=True, onset=int(index))

    def nudge(self, delta: int) -> None:
        if not self._protocol("steady_state"):
            return
        lab = self.labels.get(self.series_id)
        if lab is None or not lab.steady or lab.onset is None:
            self.status("Click the first steady sample and press Enter first; the arrows then move it")
            return
        k = int(np.clip(lab.onset + delta, 0, self.order[self.pos].n_samples - 1))
        if k != lab.onset:
            self._record(steady=True, onset=k)

    def set_change_points(self, cps: Sequence[int]) -> None:
        if self._protocol("change_points"):
            self._record(change_points=tuple(int(c) for c in cps))

    def remove_change_point(self) -> None:
        if self._protocol("change_points") and self.plot.remove_nearest() is None:
            self.status("No change point to remove")

    def mark_no_change_points(self) -> None:
        if self._protocol("change_points"):
            self._record(change_points=())

    def set_confidence(self, value: float) -> None:
        """Re-record the current label with a confidence (keys 1, 2, 3)."""
        lab = self.labels.get(self.series_id) if self.session is not None else None
        if lab is None:
            self.status("Label the series first; 1 / 2 / 3 then set your confidence")
            return
        if self.session.protocol == "change_points":
            self._record(change_points=lab.change_points or (), confidence=value, note=lab.note)
        else:
            self._record(steady=lab.steady, onset=lab.onset, confidence=value, note=lab.note)

    def clear_label(self) -> None:
        """Back to "not labelled" (a new history entry; Ctrl+Z brings the label back)."""
        if self.session is None or self.series_id not in self.labels:
            return
        sid = self.series_id
        try:
            eid = self.session.clear(self.judge, sid, expect=self.labels[sid].event_id)
        except StaleLabelError as err:
            self._stale(err)
            return
        except RecoverableError as err:
            # the label stays; a "Saved ... cleared" after this would be false (issue 17, item 8)
            self.show_error(f"Not saved: {err}")
            self._refresh()
            return
        self._mine.add(eid)
        self._refresh()
        text = f"Saved {time.strftime('%H:%M:%S')}: {sid} cleared (not labelled)"
        self.status(text)
        self.saved.emit(text)

    def undo(self) -> None:
        self._undo_redo("undo")

    def redo(self) -> None:
        self._undo_redo("redo")

    def _undo_redo(self, kind: str) -> None:
        if self.session is None or self.judge is None:
            return
        shown = {sid: lab.event_id for sid, lab in self.labels.items()}
        try:  # only this window's own actions, and only if what it shows is still current
            sid = getattr(self.session, kind)(self.judge, mine=self._mine, shown=shown)
        except StaleLabelError as err:
            if err.series_id != self.series_id:
                self.go_to_series(err.series_id)
            self._stale(err)
            return
        except RecoverableError as err:
            self.show_error(f"{kind.capitalize()} failed: {err}")
            return
        if sid is None:
            self.status(f"Nothing to {kind} (of what this window did)")
            return
        if sid != self.series_id:
            self.go_to_series(sid)
        self._refresh()
        text = (f"{'Undone' if kind == 'undo' else 'Redone'} on {sid}: now "
                f"{describe(self.labels.get(sid), self.session.protocol)}")
        self.status(text)
        self.saved.emit(text)

    # ------------------------------------------------------------------ review
