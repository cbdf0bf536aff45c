"""The evaluation job: :func:`segview.core.evaluation.job.compute` in one :class:`~..runnable.Job`
on the view's own pool (design.md §3: immutable inputs, cooperative cancellation through a
RunContext, results to ``@Slot`` receivers on the GUI thread).
"""
from __future__ import annotations

from ...core.evaluation.job import EvaluationOutcome, EvaluationRequest, compute
from ..runnable import Job

__all__ = ["EvaluationJob", "EvaluationOutcome", "EvaluationRequest", "compute"]


class EvaluationJob(Job):
    """:func:`~segview.core.evaluation.job.compute` on the view's pool (result: the
    EvaluationOutcome; progress: the fraction of detector runs done and ``"done/total runs"``)."""

    def __init__(self, req: EvaluationRequest) -> None:
        super().__init__()
        self.req = req

    def _progress(self, done: int, total: int) -> None:  # pool thread
        self.report(done / max(1, total), f"{int(done)}/{int(total)} runs")

    def compute(self) -> EvaluationOutcome:
        return compute(self.req, self.ctx, self._progress)
