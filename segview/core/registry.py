"""Detector specifications and the registry that lists them.

``segview.core.detectors`` imports each detector module explicitly; each module calls
:func:`register` once at import. There is no discovery by subclass scan or package walk.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from .context import RunContext
from .errors import UnknownMethodError
from .errors import ParameterError
from .params import ParamSpec, Params, Preset, coerce_params
from .result import DetectionResult

#: elementary steps a second that cost estimates convert with (the numba kernels' measured rate)
STEPS_PER_SECOND = 1e8


@dataclass(frozen=True)
class Cost:
    """A detector's pre-run estimate of one run: ``seconds`` of one core and peak ``bytes``, and
    ``why``, the sentence that names the parameter or the growth behind them (the warning's text
    when a limit of :mod:`segview.core.limits` is passed). ``warn=True`` warns whatever the
    numbers (e.g. a value the run will refuse).

    A detector's ``cost(n, params)`` returns one Cost or several (separate reasons, most
    specific first); :func:`segview.core.limits.cost_warning` says the first that passes a limit.
    """

    seconds: float = 0.0
    bytes: float = 0.0
    why: str = ""
    warn: bool = False

    @staticmethod
    def of_steps(steps: float, bytes: float = 0.0, why: str = "") -> "Cost":
        """A cost given in elementary steps (converted at :data:`STEPS_PER_SECOND`)."""
        return Cost(steps / STEPS_PER_SECOND, bytes, why)


CostFn = Callable[[int, Params], "Cost | tuple[Cost, ...] | list[Cost]"]


def gib(nbytes: float) -> str:
    """``nbytes`` as ``"2.5 GB"`` (binary gigabytes, as the cost warnings write them)."""
    return f"{nbytes / 2**30:.1f} GB"


def linear_cost(seconds_per_sample: float, bytes_per_sample: float = 24.0,
                what: str = "") -> CostFn:
    """The cost of a method linear in the length: ``seconds_per_sample`` and ``bytes_per_sample``
    (the series and a few arrays of its length by default)."""
    def cost(n: int, params: Params) -> Cost:
        return Cost(seconds_per_sample * n, bytes_per_sample * n,
                    f"{what or 'the run'} grows linearly with the length: {n} samples need about "
                    f"{seconds_per_sample * n / 60:.0f} minutes and {gib(bytes_per_sample * n)}")
    return cost


RunFn = Callable[[NDArray[np.float64], Params, RunContext], DetectionResult]
PrepareFn = Callable[[NDArray[np.float64], Params, RunContext], object]


@dataclass(frozen=True)
class DetectorSpec:
    """A registered detector.

    Attributes:
        name: registry key (case-insensitive lookup).
        label: display name.
        version: bumped whenever results can change; stored with saved results.
        produces: ``"onset"`` for steady-state detectors, ``"change_points"`` otherwise.
        params: parameter declarations (faithful defaults).
        run: pure function of (values, params, ctx); reads ``ctx.prepared`` when ``prepare`` is set.
        prepare: optional expensive stage depending only on the ``stage="prepare"`` parameters.
        min_length: smallest series length the detector accepts with given params (shorter input
            raises InputError before ``run``).
        affine_invariant: results unchanged under ``a*y + b`` with ``a > 0`` (drives a property test).
        needs_x: the detector uses the series' x values (e.g. processor counts).
        citation: the paper it implements.
        slow: runs take seconds; the GUI shows progress and does not re-run on every slider move.
        presets: named parameter sets (``faithful`` = the paper's configuration, where one exists);
            a preset overrides the defaults, explicit parameters override the preset.
        cost: ``(n, params) -> Cost`` (or several Costs), the cheap pre-run estimate of a run on
            ``n`` samples: seconds, bytes and the sentence that names what drives them. Every
            built-in detector declares it beside its parameters; :mod:`segview.core.limits`
            reads only these declarations to warn before minutes or gigabytes.
        cost_warning: a plug-in's older free-form ``(n, params) -> str | None`` estimate, read
            when ``cost`` is not given.
        length_limits: ``(n, params) -> {parameter: largest value}`` for parameters whose upper
            bound depends on the series length (Auto-PARM's ``n_breaks``); read by
            :func:`segview.core.limits.length_limit`, so no core module reaches into a detector.
    """

    name: str
    label: str
    version: str
    produces: Literal["onset", "change_points"]
    params: tuple[ParamSpec, ...]
    run: Callable[..., DetectionResult]
    prepare: Callable[..., object] | None = None
    min_length: Callable[[Params], int] | int = 1
    affine_invariant: bool = False
    needs_x: bool = False
    citation: str = ""
    description: str = ""
    slow: bool = False
    presets: tuple[Preset, ...] = ()
    cost_warning: Callable[[int, Params], str | None] | None = None
    cost: CostFn | None = None
    length_limits: Callable[[int, Params], Mapping[str, float]] | None = None
    enabled_by_default: bool = True

    def coerce(self, raw: Mapping[str, Any] | None = None, preset: str | None = None) -> Params:
        """Typed, checked parameters: defaults, then the preset's values, then ``raw``.

        Raises:
            ParameterError: an unknown parameter or preset, or a value out of range.
        """
        merged: dict[str, Any] = dict(self.preset(preset).values) if preset else {}
        merged.update(raw or {})
        return coerce_params(self.params, merged, self.name)

    def preset(self, name: str) -> Preset:
        """The preset called ``name`` (case-insensitive); raises ParameterError naming the known ones."""
        for p in self.presets:
            if p.name.lower() == str(name).lower():
                return p
        known = ", ".join(p.name for p in self.presets) or "none"
        raise ParameterError("preset", f"unknown preset {name!r} (known: {known})", self.name)

    def defaults(self) -> Params:
        return self.coerce({})

    def param(self, name: str) -> ParamSpec:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def prepare_params(self) -> frozenset[str]:
        return frozenset(p.name for p in self.params if p.stage == "prepare")

    def required_length(self, params: Params) -> int:
        return self.min_length(params) if callable(self.min_length) else int(self.min_length)


_REGISTRY: dict[str, DetectorSpec] = {}


def register(spec: DetectorSpec) -> DetectorSpec:
    """Add a detector; a duplicate name is a programming error."""
    key = spec.name.lower()
    if key in _REGISTRY:
        raise ValueError(f"detector {spec.name!r} is already registered")
    _REGISTRY[key] = spec
    return spec


#: Joint runners for multivariate series (``values`` of shape ``(n, d)``), keyed like _REGISTRY.
#: A detector without one works on one dimension only (see ``segview.detect_per_dimension``).
_MULTIVARIATE: dict[str, Callable[..., DetectionResult]] = {}


def register_multivariate(name: str, run: Callable[..., DetectionResult]) -> None:
    """Give detector ``name`` a joint runner ``run(values (n, d), params, ctx)``."""
    _MULTIVARIATE[name.lower()] = run


def multivariate_runner(name: str) -> Callable[..., DetectionResult] | None:
    """The joint multivariate runner of detector ``name``, or None (univariate only)."""
    _ensure_loaded()
    return _MULTIVARIATE.get(name.lower())


def _ensure_loaded() -> None:
    from . import detectors  # noqa: F401  (importing fills the registry)


def get(name: str) -> DetectorSpec:
    """The detector registered as ``name`` (case-insensitive); raises UnknownMethodError."""
    _ensure_loaded()
    try:
        return _REGISTRY[str(name).lower()]
    except KeyError:
        raise UnknownMethodError(str(name), sorted(_REGISTRY)) from None


def all_specs() -> list[DetectorSpec]:
    """Every registered detector, sorted by name."""
    _ensure_loaded()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
