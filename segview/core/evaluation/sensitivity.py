"""Sobol sensitivity analysis of a detector's parameters (``docs/algorithms/evaluation.md`` §3).

Saltelli sampling and Sobol analysis come from SALib (``SALib.sample.sobol.sample`` and
``SALib.analyze.sobol.analyze``): first-order (S1), total (ST) and second-order (S2) indices with
bootstrap half-widths (``*_conf``, ``conf_level`` 0.95). ``N`` base samples give ``N·(2D + 2)``
model evaluations (``N·(D + 2)`` without second order).

Model output per row (the spec's objective, ``objective="sse"``): ``Y = Σ (g − p)²`` over the
truth-steady series, with ``p = −1`` used as a number when the detector says "never steady" (the
reference code's convention). ``objective="abs"`` uses ``Σ |g − p|`` the same way. Integer
parameters are rounded with Python's ``round``; "odd" ones are then decreased by one when even.

The spec's KB-KSSD problem (five parameters, code ranges, fixed ``p_hi = 85``, ``p_lo = 2``, ``k = 1``,
``min_steady_length = 0``) is the default for ``kbkssd``; any registered detector can be analysed with
explicit ranges. Detectors are found only through the registry.
"""
from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ..errors import InputError, ParameterError
from ..model import Series
from ..params import Params
from ..registry import DetectorSpec
from .batch import Executor, MethodSpec, Progress, run_onsets
from .metrics import TruthRow

log = logging.getLogger(__name__)
Transform = Literal["float", "int", "odd"]
_TRANSFORMS: dict[str, Transform] = {"float": "float", "int": "int", "odd": "odd"}
Objective = Literal["sse", "abs"]

#: canonical name -> accepted detector parameter names (the reference code's and segview's)
ALIASES: dict[str, tuple[str, ...]] = {
    "outlier_win_size": ("outlier_win_size", "outliers_window_size", "outliers_win_size"),
    "prob_win_size": ("prob_win_size",),
    "step_win_size": ("step_win_size",),
    "t_crit": ("t_crit",),
    "prob_threshold": ("prob_threshold",),
    "p_hi": ("percentile_upper", "percentile_threshold_upper", "p_hi"),
    "p_lo": ("percentile_lower", "percentile_threshold_lower", "p_lo"),
    "medfilt_kernel_size": ("medfilt_kernel_size", "median_kernel_size"),
    "min_steady_length": ("min_steady_length",),
}


@dataclass(frozen=True)
class Factor:
    """One varied parameter: uniform on ``[low, high]``, then ``transform``."""

    name: str
    low: float
    high: float
    transform: Transform = "float"

    def value(self, x: float) -> float | int:
        if self.transform == "float":
            return float(x)
        v = int(round(float(x)))
        if self.transform == "odd" and v % 2 == 0:
            v -= 1
        return v


#: evaluation.md §3: Sobol problem of KB-KSSD (code ranges) and its fixed settings
SPEC_PROBLEMS: dict[str, tuple[tuple[Factor, ...], dict[str, Any]]] = {
    "kbkssd": (
        (Factor("prob_win_size", 400.5, 600.5, "int"),
         Factor("step_win_size", 50.5, 90.5, "int"),
         Factor("t_crit", 3.5, 5.5),
         Factor("prob_threshold", 0.75, 0.95),
         Factor("outlier_win_size", 80.5, 120.5, "odd")),
        {"p_hi": 85.0, "p_lo": 2.0, "medfilt_kernel_size": 1, "min_steady_length": 0},
    ),
}


def resolve_name(spec: DetectorSpec, name: str) -> str:
    """The detector's own name for ``name`` (its own names and the canonical aliases work)."""
    own = {p.name for p in spec.params}
    if name in own:
        return name
    for alias in ALIASES.get(name, ()):
        if alias in own:
            return alias
    for canon, aliases in ALIASES.items():
        if name in aliases:
            for alias in (canon, *aliases):
                if alias in own:
                    return alias
    raise ParameterError(name, f"not a parameter of {spec.name} "
                               f"(has: {', '.join(sorted(own))})", spec.name)


def default_problem(spec: DetectorSpec) -> tuple[list[Factor], dict[str, Any]]:
    """The spec's factors and fixed parameters for ``spec`` (names resolved); InputError if none."""
    if spec.name.lower() not in SPEC_PROBLEMS:
        raise InputError("ranges", f"no default ranges for {spec.name}; give them as "
                                   "NAME=LOW:HIGH[:int|odd|float]")
    factors, fixed = SPEC_PROBLEMS[spec.name.lower()]
    return ([Factor(resolve_name(spec, f.name), f.low, f.high, f.transform) for f in factors],
            {resolve_name(spec, k): v for k, v in fixed.items()})


def parse_range(text: str) -> Factor:
    """``NAME=LOW:HIGH[:int|odd|float]`` -> Factor."""
    if "=" not in text:
        raise ParameterError(text, "expected NAME=LOW:HIGH[:int|odd|float]")
    name, rest = text.split("=", 1)
    parts = rest.split(":")
    if len(parts) not in (2, 3):
        raise ParameterError(name, f"expected LOW:HIGH[:int|odd|float], got {rest!r}")
    try:
        low, high = float(parts[0]), float(parts[1])
    except ValueError:
        raise ParameterError(name, f"bounds must be numbers, got {rest!r}") from None
    kind = parts[2] if len(parts) == 3 else "float"
    transform = _TRANSFORMS.get(kind)
    if transform is None:
        raise ParameterError(name, f"transform must be int, odd or float, got {kind!r}")
    if not low < high:
        raise ParameterError(name, f"low {low} must be below high {high}")
    return Factor(name.strip().replace("-", "_"), low, high, transform)


def check_factors(spec: DetectorSpec, factors: Sequence[Factor]) -> list[Factor]:
    """Resolve names; default the transform of int parameters to ``int``."""
    out = []
    for f in factors:
        name = resolve_name(spec, f.name)
        kind = spec.param(name).kind
        if kind not in ("int", "float"):
            raise ParameterError(name, f"only numeric parameters can be varied (is {kind})", spec.name)
        tr = "int" if kind == "int" and f.transform == "float" else f.transform
        out.append(Factor(name, f.low, f.high, tr))
    if len({f.name for f in out}) != len(out):
        raise ParameterError("ranges", "a parameter is given twice", spec.name)
    if not out:
        raise InputError("ranges", "no parameters to vary")
    return out


def truth_arrays(truth: Mapping[str, TruthRow], series: Sequence[Series]
                 ) -> tuple[list[int], NDArray[np.float64]]:
    """Indices into ``series`` of the truth-steady series and their reference onsets."""
    by_id = {s.id: i for i, s in enumerate(series)}
    idx, g = [], []
    for sid, row in truth.items():
        if not row.steady:
            continue
        if sid not in by_id:
            raise InputError("series", f"truth series {sid} is not among the loaded series")
        idx.append(by_id[sid])
        if row.reference is None:
            raise InputError("truth", f"steady series {sid} has no reference onset")
        g.append(float(row.reference))
    if not idx:
        raise InputError("truth", "no steady series in the truth")
    return idx, np.asarray(g)


def objective_value(g: NDArray[np.float64], p: NDArray[np.float64], objective: Objective) -> float:
    """``Σ (g − p)²`` or ``Σ |g − p|`` with ``p = −1`` for "never steady"."""
    d = g - p
    return float(np.dot(d, d)) if objective == "sse" else float(np.abs(d).sum())


@dataclass
class SobolResult:
    """Indices (in factor order) with their bootstrap half-widths and the raw samples."""

    method: str
    factors: list[Factor]
    fixed: dict[str, Any]
    objective: str
    n_base: int
    S1: NDArray[np.float64]
    S1_conf: NDArray[np.float64]
    ST: NDArray[np.float64]
    ST_conf: NDArray[np.float64]
    S2: NDArray[np.float64] | None
    S2_conf: NDArray[np.float64] | None
    X: NDArray[np.float64] = field(repr=False)
    Y: NDArray[np.float64] = field(repr=False)
    n_unique: int = 0
    seconds: float = 0.0

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.factors]

    def to_dict(self) -> dict[str, Any]:
        def arr(a: NDArray[np.float64] | None) -> Any:
            return None if a is None else np.where(np.isfinite(a), a, np.nan).tolist()
        d = {"method": self.method, "parameters": self.names,
             "ranges": {f.name: [f.low, f.high, f.transform] for f in self.factors},
             "fixed": self.fixed, "objective": self.objective, "n_base": self.n_base,
             "n_evaluations": int(len(self.Y)), "n_unique_configurations": self.n_unique,
             "seconds": self.seconds,
             "S1": arr(self.S1), "S1_conf": arr(self.S1_conf), "ST": arr(self.ST),
             "ST_conf": arr(self.ST_conf), "S2": arr(self.S2), "S2_conf": arr(self.S2_conf)}
        return _nan_to_none(d)


def _nan_to_none(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if np.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _nan_to_none(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_nan_to_none(v) for v in obj]
    return obj


def sample(factors: Sequence[Factor], n_base: int, seed: int | None = None,
           calc_second_order: bool = True) -> NDArray[np.float64]:
    """Saltelli/Sobol' rows (SALib), before the integer transforms."""
    from SALib.sample import sobol as sobol_sample

    if n_base < 2:
        raise ParameterError("N", f"need at least 2 base samples, got {n_base}")
    problem = _problem(factors)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SALib warns when N is not a power of two
        return sobol_sample.sample(problem, n_base, calc_second_order=calc_second_order, seed=seed)


def _problem(factors: Sequence[Factor]) -> dict[str, Any]:
    return {"num_vars": len(factors), "names": [f.name for f in factors],
            "bounds": [[f.low, f.high] for f in factors]}


def configurations(spec: DetectorSpec, factors: Sequence[Factor], fixed: Mapping[str, Any],
                   X: NDArray[np.float64]) -> list[Params]:
    """Coerced parameters of every sample row (ParameterError for out-of-range values)."""
    base = dict(fixed)
    return [spec.coerce({**base, **{f.name: f.value(x) for f, x in zip(factors, row)}})
            for row in X]


def evaluate_configurations(spec: DetectorSpec, configs: Sequence[Params], series: Sequence[Series],
                            truth: Mapping[str, TruthRow], objective: Objective = "sse",
                            executor: Executor | str | None = None,
                            progress: Progress | None = None, cache_dir: Any = None,
                            workers: int | None = None) -> tuple[NDArray[np.float64], int]:
    """Objective of every configuration (duplicates run once). Returns (Y, unique count)."""
    idx, g = truth_arrays(truth, series)
    steady_series = [series[i] for i in idx]
    unique = list(dict.fromkeys(configs))
    p, errors = run_onsets(steady_series, [MethodSpec(spec, c) for c in unique], executor=executor,
                           progress=progress, cache_dir=cache_dir, workers=workers)
    if errors:
        log.warning("%d runs failed and count as 'never steady'", errors)
        p = np.where(np.isnan(p), -1.0, p)
    per_unique = {c: objective_value(g, p[i], objective) for i, c in enumerate(unique)}
    return np.array([per_unique[c] for c in configs]), len(unique)


def run_sobol(spec: DetectorSpec, series: Sequence[Series], truth: Mapping[str, TruthRow],
              factors: Sequence[Factor] | None = None, fixed: Mapping[str, Any] | None = None,
              n_base: int = 512, seed: int | None = None, objective: Objective = "sse",
              calc_second_order: bool = True, num_resamples: int = 100, conf_level: float = 0.95,
              executor: Executor | str | None = None, progress: Progress | None = None,
              cache_dir: Any = None, workers: int | None = None) -> SobolResult:
    """Sample, evaluate through the batch engine, and analyse.

    Args:
        spec: the detector (from the registry).
        factors: varied parameters (default: the spec's problem for this detector).
        fixed: parameters held constant (default: the spec's fixed settings when ``factors`` is
            also defaulted, else the detector defaults).
        n_base: SALib's ``N``; 512 gives 6144 evaluations for five factors with second order.
        seed: seeds both the scrambled Sobol' sequence and the bootstrap (None: not reproducible).
    """
    from SALib.analyze import sobol as sobol_analyze

    if factors is None:
        factors, spec_fixed = default_problem(spec)
        fixed = {**spec_fixed, **dict(fixed or {})}
    factors = check_factors(spec, factors)
    fixed = {resolve_name(spec, k): v for k, v in dict(fixed or {}).items()}
    t0 = time.perf_counter()
    X = sample(factors, n_base, seed, calc_second_order)
    configs = configurations(spec, factors, fixed, X)
    Y, n_unique = evaluate_configurations(spec, configs, series, truth, objective, executor,
                                          progress, cache_dir, workers)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sobol_analyze.analyze(_problem(factors), Y, calc_second_order=calc_second_order,
                                    num_resamples=num_resamples, conf_level=conf_level,
                                    seed=seed)
    return SobolResult(
        method=spec.name, factors=list(factors), fixed=fixed, objective=objective, n_base=n_base,
        S1=np.asarray(res["S1"]), S1_conf=np.asarray(res["S1_conf"]), ST=np.asarray(res["ST"]),
        ST_conf=np.asarray(res["ST_conf"]),
        S2=np.asarray(res["S2"]) if calc_second_order else None,
        S2_conf=np.asarray(res["S2_conf"]) if calc_second_order else None,
        X=X, Y=Y, n_unique=n_unique, seconds=time.perf_counter() - t0)


#: evaluation.md §3, Tables 2 (N=2048, 24576 runs) and 3 (N=512, 6144 runs): (S1, S1_conf, ST, ST_conf)
PAPER_TABLE2 = {
    "prob_win_size": (0.19718534, 0.0427, 0.46349316, 0.0487),
    "step_win_size": (0.00631332, 0.0069, 0.01394031, 0.0020),
    "t_crit": (0.15670927, 0.0444, 0.46206506, 0.0546),
    "prob_threshold": (0.1107751, 0.0382, 0.35747568, 0.0489),
    "outlier_win_size": (0.15383209, 0.0363, 0.26101527, 0.0226),
}
PAPER_TABLE3_ST = {"prob_win_size": (0.31653608, 0.26, 0.38), "step_win_size": (0.01159328, 0.01, 0.01),
                   "t_crit": (0.39023183, 0.31, 0.47), "prob_threshold": (0.2987368, 0.22, 0.37),
                   "outlier_win_size": (0.19648237, 0.16, 0.23)}


def canonical(name: str) -> str:
    for canon, aliases in ALIASES.items():
        if name == canon or name in aliases:
            return canon
    return name


def format_sobol_text(r: SobolResult) -> str:
    """Indices with 95 % intervals; for KB-KSSD's spec factors, the paper's Tables 2 and 3 beside."""
    lines = [f"Sobol analysis of {r.method}: {len(r.Y)} evaluations (N={r.n_base}, "
             f"{r.n_unique} distinct configurations), objective {r.objective}, {r.seconds:.1f} s",
             f"fixed: {', '.join(f'{k}={v}' for k, v in r.fixed.items()) or 'detector defaults'}", ""]
    paper = all(canonical(n) in PAPER_TABLE2 for n in r.names)
    head = f"{'parameter':22s}{'S1':>9s}{'S1 95% CI':>20s}{'ST':>9s}{'ST 95% CI':>20s}"
    if paper:
        head += f"{'paper S1 (24576)':>19s}{'paper ST (24576)':>19s}{'paper ST (6144)':>19s}"
    lines.append(head)
    for i, n in enumerate(r.names):
        line = (f"{n:22s}{r.S1[i]:9.4f}  ({r.S1[i] - r.S1_conf[i]:7.3f}, {r.S1[i] + r.S1_conf[i]:6.3f})"
                f"{r.ST[i]:9.4f}  ({r.ST[i] - r.ST_conf[i]:7.3f}, {r.ST[i] + r.ST_conf[i]:6.3f})")
        if paper:
            s1, s1c, st, stc = PAPER_TABLE2[canonical(n)]
            st3 = PAPER_TABLE3_ST[canonical(n)]
            line += f"{s1:>10.3f} ±{s1c:6.3f}{st:>10.3f} ±{stc:6.3f}{st3[0]:>8.3f} ({st3[1]}, {st3[2]})"
        lines.append(line)
    if r.S2 is not None and r.S2_conf is not None:   # computed together (calc_second_order)
        lines += ["", "second order (S2 ± half-width)"]
        for i in range(len(r.names)):
            for j in range(i + 1, len(r.names)):
                lines.append(f"  {r.names[i]} x {r.names[j]}: {r.S2[i, j]:.4f} ± {r.S2_conf[i, j]:.4f}")
    return "\n".join(lines) + "\n"
