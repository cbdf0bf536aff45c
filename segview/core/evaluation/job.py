"""One evaluation run as the GUI's evaluation view asks for it, without Qt: detectors to run now
go through the batch engine, then :func:`~.evaluate.evaluate_onsets` scores every method against
the truth. The view's job (``segview.gui.evaluate.worker``) calls :func:`compute` on a pool thread;
the tests call it directly as the reference path.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..context import RunContext
from ..errors import InputError
from ..model import Series
from .batch import MethodSpec, SerialExecutor, run_batch
from .evaluate import EvaluationReport, evaluate_onsets
from .inputs import Onsets, restrict_truth
from .metrics import ScoreMode, TruthRow

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
    """What :func:`compute` returns (the GUI job hands it to the GUI thread)."""

    report: EvaluationReport
    truth: dict[str, TruthRow]
    predictions: dict[str, Onsets]
    dropped: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    computed: dict[str, Onsets] = field(default_factory=dict)


def compute(req: EvaluationRequest, ctx: RunContext, progress: Any = None) -> EvaluationOutcome:
    """Run the detectors of ``req.runs`` (cancelled through ``ctx``), then score every method."""
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
