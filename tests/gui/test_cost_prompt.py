"""One cost question per batch (issue 29, small GUI items): opening data on which several ticked
methods would take minutes or gigabytes asks once, listing each of them with its estimate, with
Run all / Skip slow ones / Cancel; it used to stack one modal prompt per method."""
from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QLabel, QMessageBox, QPushButton

from . import fakes


def _costly(name: str, label: str) -> object:
    """FAKE_CP that declares every run over budget (a plug-in's free-form estimate)."""
    return dataclasses.replace(fakes.FAKE_CP, name=name, label=label,
                               cost_warning=lambda n, p: f"{label} on {n} samples takes hours")


SLOW_A = _costly("fake_costly_a", "Fake costly A")
SLOW_B = _costly("fake_costly_b", "Fake costly B")


def _texts(widget: QDialog) -> str:
    """Everything a modal prompt says (a message box's text, a dialog's labels and table)."""
    out = [widget.windowTitle()]
    if isinstance(widget, QMessageBox):
        out.append(widget.text())
    out += [lab.text() for lab in widget.findChildren(QLabel)]
    return "\n".join(out)


class ModalAnswerer:
    """Answers each modal prompt as it appears (whatever its kind) with the button whose text is
    one of ``buttons``, and records what it said. A timer of the event loop the prompt runs."""

    def __init__(self, buttons: tuple[str, ...]) -> None:
        self.buttons = buttons
        self.prompts: list[str] = []
        self._seen: set[int] = set()
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._poll)
        self.timer.start()

    def _poll(self) -> None:
        w = QApplication.activeModalWidget()
        if w is None or id(w) in self._seen or not w.isVisible():
            return
        self._seen.add(id(w))
        self.prompts.append(_texts(w))
        for b in w.findChildren(QPushButton):
            if b.text().replace("&", "") in self.buttons:
                b.click()
                return
        w.reject()


@pytest.fixture
def answerer():
    made: list[ModalAnswerer] = []

    def make(*buttons: str) -> ModalAnswerer:
        made.append(ModalAnswerer(buttons))
        return made[-1]

    yield make
    for a in made:
        a.timer.stop()


def test_opening_data_asks_once_for_every_slow_method(qtbot, make_window, sample, answerer):
    """Two ticked methods over budget: one prompt naming both with their estimates; Skip slow
    ones runs the others and leaves these not run."""
    modal = answerer("Skip slow ones", "No")
    w = make_window(fakes.FAKE_CP, SLOW_A, SLOW_B)
    with qtbot.waitSignal(w.overlay_updated, timeout=10000,
                          check_params_cb=lambda name: name == "fake_cp"):
        assert w.open_paths([str(sample)], background=False)
    assert len(modal.prompts) == 1, modal.prompts
    text = modal.prompts[0]
    assert "Fake costly A on 3000 samples takes hours" in text
    assert "Fake costly B on 3000 samples takes hours" in text
    assert w.status["fake_costly_a"].endswith("not run (cost)")
    assert w.status["fake_costly_b"].endswith("not run (cost)")
    assert w.results.get((w.current.id, "fake_costly_a")) is None
    w.show_series(w.series[1].id)  # the answer holds for these parameters: not asked again
    assert len(modal.prompts) == 1


def test_run_all_runs_the_slow_ones_and_cancel_runs_nothing(qtbot, make_window, sample,
                                                            monkeypatch):
    from segview.gui import cost_dialog

    asked: list[list[tuple[str, str]]] = []
    answer = {"choice": cost_dialog.CANCEL}

    def ask(parent, rows, n):
        asked.append(list(rows))
        return answer["choice"]

    monkeypatch.setattr(cost_dialog, "ask", ask)
    w = make_window(fakes.FAKE_CP, SLOW_A, SLOW_B)
    assert w.open_paths([str(sample)], background=False)
    assert [r[0] for r in asked[0]] == ["Fake costly A", "Fake costly B"]
    assert not w.runner.running_lanes() and not w.results  # Cancel: nothing of the batch runs
    assert all(w.status[n] == "not run (cancelled)" for n in ("fake_cp", "fake_costly_a"))
    answer["choice"] = cost_dialog.RUN_ALL
    drawn: set[str] = set()
    every = {"fake_cp", "fake_costly_a", "fake_costly_b"}
    with qtbot.waitSignal(w.overlay_updated, timeout=10000,
                          check_params_cb=lambda name: drawn.add(name) or drawn == every):
        w.show_series(w.series[1].id)  # a Cancel is not remembered: asked again
    assert len(asked) == 2


def test_run_on_all_series_asks_once_for_the_batch(qtbot, make_window, sample, monkeypatch):
    from segview.gui import cost_dialog

    asked: list[list[tuple[str, str]]] = []
    answers = [cost_dialog.CANCEL, cost_dialog.SKIP_SLOW]
    monkeypatch.setattr(cost_dialog, "ask",
                        lambda parent, rows, n: asked.append(list(rows)) or answers.pop(0))
    w = make_window(fakes.FAKE_CP, SLOW_A, SLOW_B)
    assert w.open_paths([str(sample)], background=False)  # asked, cancelled
    with qtbot.waitSignal(w.runner.batch_finished, timeout=20000):
        assert w.run_on_all()
    assert len(asked) == 2 and [r[0] for r in asked[1]] == ["Fake costly A", "Fake costly B"]
    assert {name for (_sid, name) in w.results} == {"fake_cp"}
    # the batch's answer is not the shown series' status: it still says it was cancelled
    assert w.status["fake_costly_a"] == "not run (cancelled)"
    assert len({sid for (sid, _name) in w.results}) == len(w.series)


@pytest.mark.parametrize("button, choice", [("run_all", "run all"), ("skip_slow", "skip slow"),
                                            ("cancel", "cancel"), (None, "cancel")])
def test_the_cost_dialog_lists_each_method_and_returns_the_choice(qtbot, button, choice):
    from segview.gui.cost_dialog import CostDialog

    d = CostDialog([("Auto-PARM", "n_breaks=40 needs 5.5 GB"),
                    ("CP-SSD <b>", "10000 resamples take 20 minutes")], 1_000_000)
    qtbot.addWidget(d)
    assert [(a.text(), b.text()) for a, b in d.rows] == [
        ("<b>Auto-PARM</b>", "n_breaks=40 needs 5.5 GB"),
        ("<b>CP-SSD &lt;b&gt;</b>", "10000 resamples take 20 minutes")]
    assert all(b.wordWrap() for _, b in d.rows)  # whole sentences, never elided
    assert "1,000,000 samples" in _texts(d) and d.skip_slow.isDefault()
    d.show()
    with qtbot.waitSignal(d.finished, timeout=5000):
        if button is None:
            qtbot.keyClick(d, Qt.Key.Key_Escape)
        else:
            getattr(d, button).click()
    assert d.choice == choice
