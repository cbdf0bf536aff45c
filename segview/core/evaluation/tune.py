"""Parameter tuning by grid search (``docs/algorithms/evaluation.md`` §4) and the weighted multi-objective cost
the KB-KSSD paper proposes as future work (§6).

Single objective (``"manhattan"``, eq. 13-14): ``m(θ) = Σ |g − p(θ)|`` over the truth-steady series
where the detector with ``θ`` **and** every reference method (e.g. CP-SSD's published onsets) say
steady. Series the detector calls unsteady drop out, so a configuration that rejects hard series can
look better: the number of scored series is reported next to ``m``, and configurations scoring no
series rank last.

Weighted (``"weighted"``): ``cost(θ) = Σ_k w_k · t_k(θ) / max_θ' t_k(θ')`` over the terms
``fp``, ``fn`` (false positives/negatives over all truth series), ``bias`` (``|mean e|``), ``std``
(standard deviation of ``e``), ``mae`` (mean ``|e|``) and ``medae`` (median ``|e|``), errors ``e = g − p``
over the scored series. Each term is scaled by its largest value on the grid so the weights are
comparable; a configuration with no scored series gets the largest error terms of the grid.
"""
from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

import numpy as np

from ..errors import InputError, ParameterError
from ..model import Series
from ..params import Params
from ..registry import DetectorSpec
from .batch import Executor, MethodSpec, Progress, run_onsets
from .metrics import TruthRow
from .sensitivity import resolve_name

Objective = Literal["manhattan", "weighted"]
TERMS = ("fp", "fn", "bias", "std", "mae", "medae")

#: evaluation.md §4: the paper's 15000-configuration grid for KB-KSSD and its fixed settings
SPEC_GRIDS: dict[str, tuple[dict[str, list[Any]], dict[str, Any]]] = {
    "kbkssd": (
        {"outlier_win_size": [80, 90, 100, 110, 120], "prob_win_size": [200, 350, 500, 650, 800],
         "t_crit": [3.0, 3.5, 4.0, 4.5], "step_win_size": [60, 70, 80, 90, 100],
         "prob_threshold": [0.75, 0.80, 0.85, 0.90, 0.95],
         "medfilt_kernel_size": [1, 101, 201, 301, 401, 501]},
        {"p_hi": 85.0, "p_lo": 2.0, "min_steady_length": 0},
    ),
}


@dataclass
class TuneRow:
    """One configuration's scores."""

    params: Params
    cost: float
    manhattan: int
    n_scored: int
    agreement: int
    false_positive: int
    false_negative: int
    mean_error: float
    std_error: float
    mean_abs_error: float
    median_abs_error: float

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        d = {n: self.params[n] for n in names}
        d.update({k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                  for k, v in vars(self).items() if k != "params"})
        return d


@dataclass
class TuneResult:
    method: str
    objective: str
    grid: dict[str, list[Any]]
    fixed: dict[str, Any]
    weights: dict[str, float]
    rows: list[TuneRow] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def best(self) -> TuneRow:
        return self.rows[0]


def parse_grid(text: str) -> tuple[str, list[str]]:
    """``NAME=V1,V2,...`` or ``NAME=LOW:HIGH:STEP`` (inclusive) -> (name, raw values)."""
    if "=" not in text:
        raise ParameterError(text, "expected NAME=V1,V2,... or NAME=LOW:HIGH:STEP")
    name, rest = (t.strip() for t in text.split("=", 1))
    name = name.replace("-", "_")
    if ":" in rest:
        try:
            lo, hi, step = (float(x) for x in rest.split(":"))
        except ValueError:
            raise ParameterError(name, f"expected LOW:HIGH:STEP, got {rest!r}") from None
        if step <= 0 or hi < lo:
            raise ParameterError(name, f"bad range {rest!r}")
        count = int(math.floor((hi - lo) / step + 1e-9)) + 1
        vals = [lo + i * step for i in range(count)]
        return name, [str(int(v)) if float(v).is_integer() else repr(round(v, 12)) for v in vals]
    values = [v.strip() for v in rest.split(",") if v.strip()]
    if not values:
        raise ParameterError(name, "no values")
    return name, values


def default_grid(spec: DetectorSpec) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    if spec.name.lower() not in SPEC_GRIDS:
        raise InputError("grid", f"no default grid for {spec.name}; give --grid NAME=V1,V2,...")
    grid, fixed = SPEC_GRIDS[spec.name.lower()]
    return ({resolve_name(spec, k): list(v) for k, v in grid.items()},
            {resolve_name(spec, k): v for k, v in fixed.items()})


class _Scores(TypedDict):
    """The scores of one configuration: :class:`TuneRow`'s fields after ``params`` and ``cost``."""

    manhattan: int
    n_scored: int
    agreement: int
    false_positive: int
    false_negative: int
    mean_error: float
    std_error: float
    mean_abs_error: float
    median_abs_error: float


def _scores(g: np.ndarray, steady: np.ndarray, clustered_ok: np.ndarray, p: np.ndarray
            ) -> _Scores:
    says = p >= 0
    fp = int((says & ~steady).sum())
    fn = int((~says & steady).sum())
    scored = steady & says & clustered_ok
    e = g[scored] - p[scored]
    a = np.abs(e)
    nan = float("nan")
    return {"manhattan": int(a.sum()), "n_scored": int(scored.sum()),
            "agreement": int((says == steady).sum()), "false_positive": fp, "false_negative": fn,
            "mean_error": float(e.mean()) if e.size else nan,
            "std_error": float(e.std()) if e.size else nan,
            "mean_abs_error": float(a.mean()) if e.size else nan,
            "median_abs_error": float(np.median(a)) if e.size else nan}


def _weighted(scores: list[_Scores], weights: Mapping[str, float]) -> list[float]:
    terms = {
        "fp": [s["false_positive"] for s in scores], "fn": [s["false_negative"] for s in scores],
        "bias": [abs(s["mean_error"]) for s in scores], "std": [s["std_error"] for s in scores],
        "mae": [s["mean_abs_error"] for s in scores], "medae": [s["median_abs_error"] for s in scores],
    }
    cost = np.zeros(len(scores))
    for k, w in weights.items():
        v = np.asarray(terms[k], dtype=float)
        finite = v[np.isfinite(v)]
        worst = float(finite.max()) if finite.size else 1.0
        v = np.where(np.isfinite(v), v, worst)
        cost += w * v / (worst if worst > 0 else 1.0)
    return cost.tolist()


def grid_search(spec: DetectorSpec, series: Sequence[Series], truth: Mapping[str, TruthRow],
                grid: Mapping[str, Sequence[Any]] | None = None,
                fixed: Mapping[str, Any] | None = None,
                references: Sequence[Mapping[str, int | None]] = (),
                objective: Objective = "manhattan", weights: Mapping[str, float] | None = None,
                executor: Executor | str | None = None, progress: Progress | None = None,
                cache_dir: Any = None, workers: int | None = None) -> TuneResult:
    """Score every grid configuration on the truth series; rows sorted best first.

    Args:
        grid: parameter -> values (default: the spec's grid for this detector, with its fixed
            settings).
        references: onsets of other methods (``None`` = never steady); a series is scored only
            where all of them say steady (the paper uses CP-SSD).
        objective: ``"manhattan"`` or ``"weighted"`` (with ``weights`` over TERMS; default all 1).
    """
    if grid is None:
        grid, spec_fixed = default_grid(spec)
        fixed = {**spec_fixed, **dict(fixed or {})}
    grid = {resolve_name(spec, k): list(v) for k, v in grid.items()}
    fixed = {resolve_name(spec, k): v for k, v in dict(fixed or {}).items()}
    if objective not in ("manhattan", "weighted"):
        raise ParameterError("objective", f"{objective!r} is not manhattan or weighted")
    w = dict(weights) if weights else {k: 1.0 for k in TERMS}
    for k in w:
        if k not in TERMS:
            raise ParameterError(k, f"unknown weight (terms: {', '.join(TERMS)})")
    by_id = {s.id: s for s in series}
    ids = list(truth)
    missing = [s for s in ids if s not in by_id]
    if missing:
        raise InputError("series", f"truth series {missing[0]} is not among the loaded series")
    for ref in references:
        absent = [s for s in ids if s not in ref]
        if absent:
            raise InputError("reference", f"no reference onset for series {absent[0]}")
    names = list(grid)
    configs = [spec.coerce({**fixed, **dict(zip(names, combo))})
               for combo in itertools.product(*grid.values())]
    if not configs:
        raise InputError("grid", "empty grid")
    t0 = time.perf_counter()
    p, failed = run_onsets([by_id[s] for s in ids], [MethodSpec(spec, c) for c in configs],
                           executor=executor, progress=progress, cache_dir=cache_dir,
                           workers=workers)
    p = np.where(np.isnan(p), -1.0, p)
    steady = np.array([truth[s].steady for s in ids])
    g = np.array([truth[s].reference if truth[s].steady else -1 for s in ids], dtype=float)
    ok = np.array([all(r[s] is not None for r in references) for s in ids], dtype=bool)
    scores = [_scores(g, steady, ok, p[i]) for i in range(len(configs))]
    if objective == "manhattan":
        costs = [float(s["manhattan"]) if s["n_scored"] else math.inf for s in scores]
    else:
        costs = _weighted(scores, w)
    rows = [TuneRow(params=c, cost=cost, **s) for c, cost, s in zip(configs, costs, scores)]
    rows.sort(key=lambda r: (r.cost, -r.n_scored))
    return TuneResult(spec.name, objective, {k: list(v) for k, v in grid.items()}, fixed,
                      w if objective == "weighted" else {}, rows, time.perf_counter() - t0)


def format_tune_text(res: TuneResult, top: int = 10) -> str:
    names = list(res.grid)
    lines = [f"grid search of {res.method}: {len(res.rows)} configurations, objective "
             f"{res.objective}" + (f" (weights {res.weights})" if res.weights else "")
             + f", {res.seconds:.1f} s",
             f"fixed: {', '.join(f'{k}={v}' for k, v in res.fixed.items()) or 'detector defaults'}",
             ""]
    head = "".join(f"{n[:16]:>17s}" for n in names)
    lines.append(f"{'rank':>4s}{head}{'cost':>12s}{'sum|e|':>9s}{'scored':>7s}{'FP':>5s}{'FN':>5s}"
                 f"{'mean e':>9s}{'std e':>9s}")
    for i, r in enumerate(res.rows[:top], 1):
        vals = "".join(f"{r.params[n]!s:>17s}" for n in names)
        lines.append(f"{i:4d}{vals}{r.cost:12.5g}{r.manhattan:9d}{r.n_scored:7d}"
                     f"{r.false_positive:5d}{r.false_negative:5d}{r.mean_error:9.1f}{r.std_error:9.1f}")
    return "\n".join(lines) + "\n"
