"""The evaluation job: run-now detectors through the core's batch engine, then ``evaluate_onsets``,
in one QRunnable on the view's own pool (design.md §3: immutable inputs, a WorkerSignals object,
cooperative cancellation through a RunContext, results to ``@Slot`` receivers on the GUI thread).
"""
from __future__ import annotations

import threading
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Signal

from ...core.context import RunContext
from ...core.errors import Cancelled, InputError, RecoverableError
from ...core.evaluation.batch import MethodSpec, SerialExecutor, run_batch
from ...core.evaluation.evaluate import EvaluationReport, evaluate_onsets
from ...core.evaluation.metrics import ScoreMode, TruthRow
from ...core.model import Series
from .inputs import Onsets, restrict_truth

# Series per batch chunk is total / (workers * 8): a large nominal worker count makes every chunk
# one series, so progress and cancellation answer after each series.
_CHUNKING_WORKERS = 1 << 16


@dataclass(frozen=True)
class EvaluationRequest:
    """Everything the job needs; built on the GUI thread, never changed afterwards."""

    truth: Mapping[str, TruthRow]
    known: Mapping[str, Onsets]  # method -> onsets already available (files, labels, earlier runs)
    runs: tuple[tuple[str, MethodSpec], ...]  # (report name, detector with parameters)
    series: tuple[Series, ...]
    order: tuple[str, ...]
    mode: ScoreMode = "joint"
    cache_dir: str | None = None


@dataclass
class EvaluationOutcome:
    """What the job hands back to the GUI thread."""

    report: EvaluationReport
    truth: dict[str, TruthRow]
    predictions: dict[str, Onsets]
    dropped: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    computed: dict[str, Onsets] = field(default_factory=dict)


class EvaluationSignals(QObject):
    progress = Signal(int, int)  # done, total (detector runs)
    finished = Signal(object)  # EvaluationOutcome
    failed = Signal(str)
    cancelled = Signal()


def compute(req: EvaluationRequest, ctx: RunContext, progress: Any = None) -> EvaluationOutcome:
    """The job's work, callable without Qt (also used by the tests as the reference path)."""
    preds: dict[str, Onsets] = {m: dict(o) for m, o in req.known.items()}
    failures: list[str] = []
    computed: dict[str, Onsets] = {}
    if req.runs:
        if not req.series:
            raise InputError("series", "load series in the explorer to run detectors now")
        ex = SerialExecutor()
        ex.workers = _CHUNKING_WORKERS
        rows = run_batch(list(req.series), [ms for _, ms in req.runs], executor=ex,
                         progress=progress, cache_dir=req.cache_dir, ctx=ctx)
        for name, _ in req.runs:
            computed[name] = {}
        for row in rows:
            name = req.runs[row["spec_index"]][0]
            if row["error"]:
                failures.append(f"{name} on {row['series_id']}: {row['error']}")
                continue
            computed[name][row["series_id"]] = row["steady_index"]
        preds.update(computed)
    ctx.check()
    chosen = {m: preds[m] for m in req.order}
    truth, dropped = restrict_truth(req.truth, chosen)
    if not truth:
        raise InputError("truth", "no truth series has a prediction from every method "
                                  f"({len(req.truth)} truth series)")
    report = evaluate_onsets(truth, chosen, list(req.order), mode=req.mode)
    return EvaluationOutcome(report, truth, chosen, dropped, failures, computed)


class EvaluationJob(QRunnable):
    """Emits exactly one of finished / failed / cancelled, plus progress while detectors run."""

    def __init__(self, req: EvaluationRequest) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the view keeps the reference until run() has returned
        self.req = req
        self.ctx = RunContext()
        self.signals = EvaluationSignals()
        self.done = threading.Event()

    def cancel(self) -> None:
        self.ctx.cancel()

    def _progress(self, done: int, total: int) -> None:  # worker thread
        self.signals.progress.emit(int(done), int(total))

    def run(self) -> None:  # worker thread
        try:
            outcome = compute(self.req, self.ctx, self._progress)
        except Cancelled:
            self.signals.cancelled.emit()
        except RecoverableError as err:
            self.signals.failed.emit(str(err))
        except Exception:  # a bug: report it, keep the app alive
            self.signals.failed.emit(traceback.format_exc())
        else:
            self.signals.finished.emit(outcome)
        finally:
            self.done.set()


def default_cache_dir() -> str:
    """The CLI's result cache, so runs from either front end are shared."""
    from ...cli.evaluate import default_cache_dir as cli_default

    return str(Path(cli_default()))
