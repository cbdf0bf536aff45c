"""Inputs of an evaluation, as the GUI's evaluation view collects them (no Qt here): the truth and
the method entries (prediction files, onset columns of a ``labels.csv``, detectors to run now)
turned into what :func:`segview.core.evaluation.evaluate.evaluate_onsets` takes.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import InputError
from .metrics import TruthRow
from .tables import read_predictions
from ..io.labels_csv import LabelRow
from ..params import Params
from ..registry import DetectorSpec

Onsets = dict[str, "int | None"]
Kind = Literal["file", "labels", "run"]


@dataclass
class MethodEntry:
    """One method of the evaluation.

    ``file`` and ``labels`` entries carry their onsets; a ``run`` entry names a registered onset
    detector that is run on the loaded series (its onsets are kept with the parameters used).
    """

    name: str
    kind: Kind
    source: str
    onsets: Onsets | None = None
    spec: DetectorSpec | None = None
    params: Params | None = None

    def describe(self) -> str:
        if self.kind == "file":
            return f"{self.name}  ({Path(self.source).name})"
        if self.kind == "labels":
            return f"{self.name}  (labels.csv)"
        return f"{self.name}  (run now)"


def truth_from_labels(labels: Mapping[str, LabelRow]) -> tuple[dict[str, TruthRow], list[str]]:
    """Truth rows from the explorer's labels (``steady``, ``jagt_index``, ``jagt_clustered``).

    Returns:
        (truth, ids skipped because their steady flag or reference onset is missing).
    """
    truth: dict[str, TruthRow] = {}
    skipped: list[str] = []
    for sid, row in labels.items():
        if row.steady is None or (row.steady and row.jagt_index is None):
            skipped.append(sid)
            continue
        truth[sid] = TruthRow(sid, bool(row.steady), row.jagt_index if row.steady else None,
                              row.jagt_clustered if row.steady else None)
    return truth, skipped


def label_onset_columns(labels: Mapping[str, LabelRow]) -> list[str]:
    """Published onset columns of a labels table (e.g. ``cpssd_published``), in file order."""
    out: list[str] = []
    for row in labels.values():
        for col in row.onsets:
            if col not in out:
                out.append(col)
    return out


def onsets_from_labels(labels: Mapping[str, LabelRow], column: str) -> Onsets:
    return {sid: row.onsets.get(column) for sid, row in labels.items() if column in row.onsets}


def read_prediction_file(path: str | Path) -> dict[str, Onsets]:
    """Onset predictions per method of one ``segview detect`` CSV.

    Raises:
        DataFormatError: malformed file. InputError: no onset method in it.
    """
    pred = read_predictions([path])
    if not pred.onset_methods:
        raise InputError(str(path), "has no onset predictions (steady_index) to evaluate")
    return {m: dict(pred.onsets[m]) for m in pred.onset_methods}


def unique_name(name: str, taken: Sequence[str]) -> str:
    """``name``, or ``name #2``, ``name #3``… when it is taken."""
    if name not in taken:
        return name
    k = 2
    while f"{name} #{k}" in taken:
        k += 1
    return f"{name} #{k}"


def restrict_truth(truth: Mapping[str, TruthRow], predictions: Mapping[str, Onsets]
                   ) -> tuple[dict[str, TruthRow], list[str]]:
    """Keep the truth series every method predicted (the core demands full coverage).

    Returns:
        (restricted truth in truth order, dropped series ids).
    """
    kept = {sid: row for sid, row in truth.items()
            if all(sid in onsets for onsets in predictions.values())}
    return kept, [sid for sid in truth if sid not in kept]
