"""The public functions behind ``segview.detect`` and ``segview.methods``."""
from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import registry
from .context import NULL_CONTEXT, RunContext
from .errors import InputError
from .model import Series, as_values, check_finite, needs_one_dimension_message
from .params import Params
from .registry import DetectorSpec
from .result import DetectionResult


def _values_of(series_or_values: Series | ArrayLike) -> tuple[NDArray[np.float64], Series | None, str]:
    if isinstance(series_or_values, Series):
        return series_or_values.values, series_or_values, series_or_values.id
    # finiteness is checked with the magnitude in check_length (one pass for both, issue 31)
    return as_values(series_or_values, copy=False, allow_nonfinite=True), None, "series"


# Detectors square and sum values (variances, segment costs, regressions): above ~1e154 squares
# overflow to inf and below ~1e-154 they underflow to 0, so results would be silently wrong.
# Values are refused outside this band instead (a user rescales by a power of ten).
MAGNITUDE_LIMITS = (1e-150, 1e150)


def check_magnitude(values: NDArray[np.float64], what: str) -> None:
    """Raise InputError when the values' magnitude is outside :data:`MAGNITUDE_LIMITS`, or when
    they hold NaN or infinity (the extremes show them: NaN propagates through min and max)."""
    if values.size == 0:
        return
    # max |v| from the two extremes: two passes and no n-long temporary (issue 31)
    lo, hi = float(np.min(values)), float(np.max(values))
    if not (math.isfinite(lo) and math.isfinite(hi)):
        check_finite(values, what)
    top = max(-lo, hi)
    low, high = MAGNITUDE_LIMITS
    if top > high:
        raise InputError(what, f"values reach {top:.3g}: above {high:.0e} squares and sums overflow; "
                               "divide the series by a power of ten (other units) first")
    if 0.0 < top < low:
        raise InputError(what, f"values are at most {top:.3g}: below {low:.0e} squares underflow to "
                               "zero; multiply the series by a power of ten (other units) first")


def check_length(spec: DetectorSpec, values: NDArray[np.float64], params: Params, what: str) -> None:
    """Raise InputError when the series is shorter than the detector needs or its values are out of
    the range detectors compute in (:func:`check_magnitude`)."""
    need = spec.required_length(params)
    if values.size < need:
        check_finite(values, what)  # a NaN is named before the length, as ever
        raise InputError(what, f"{spec.name} needs at least {need} points with these parameters, "
                               f"got {values.size}")
    check_magnitude(values, what)


def run_spec(spec: DetectorSpec, series: Series | ArrayLike, params: Params,
             ctx: RunContext = NULL_CONTEXT) -> DetectionResult:
    """Run an already-resolved detector with coerced params (used by the GUI and batch engine)."""
    if isinstance(series, Series) and series.dims:
        return _run_multivariate(spec, series, params, ctx)
    values, ser, what = _values_of(series)
    check_length(spec, values, params, what)
    start = time.perf_counter()
    if spec.needs_x:
        result = spec.run(ser if ser is not None else Series(values), params, ctx)
    else:
        if spec.prepare is not None and ctx.prepared is None:
            ctx = ctx.with_prepared(spec.prepare(values, params, ctx))
        result = spec.run(values, params, ctx)
    elapsed = (time.perf_counter() - start) * 1000.0
    return dataclasses.replace(result, runtime_ms=elapsed)


def _run_multivariate(spec: DetectorSpec, series: Series, params: Params,
                      ctx: RunContext) -> DetectionResult:
    run = registry.multivariate_runner(spec.name)
    if run is None:
        raise InputError(series.id, needs_one_dimension_message(series, spec.name))
    need = spec.required_length(params)
    if len(series) < need:
        raise InputError(series.id, f"{spec.name} needs at least {need} points with these "
                                    f"parameters, got {len(series)}")
    start = time.perf_counter()
    result = run(series.values, params, ctx)
    elapsed = (time.perf_counter() - start) * 1000.0
    return dataclasses.replace(result, runtime_ms=elapsed)


def detect_per_dimension(series: Series, method: str, ctx: RunContext | None = None,
                         preset: str | None = None, **params: Any) -> dict[str, DetectionResult]:
    """Run ``method`` on each dimension of a (multivariate) series separately.

    For detectors that are univariate by definition; returns ``{dimension name: result}`` (one
    entry named after the series for a univariate series). Multivariate-capable detectors (op, pelt,
    binseg) segment all dimensions jointly with :func:`detect` instead.
    """
    spec = registry.get(method)
    coerced = spec.coerce(params, preset=preset)
    dims = series.dims or (series.id,)
    return {name: run_spec(spec, part, coerced, ctx or NULL_CONTEXT)
            for name, part in zip(dims, series.dimensions())}


def detect(series_or_values: Series | ArrayLike, method: str, ctx: RunContext | None = None,
           preset: str | None = None, **params: Any) -> DetectionResult:
    """Run detector ``method`` on a series.

    Args:
        series_or_values: a :class:`Series` or a 1-D sequence of finite numbers. A multivariate
            Series is segmented jointly by detectors that support it (op, pelt, binseg); others
            raise InputError (use :func:`detect_per_dimension`).
        method: a registered detector name (see :func:`methods`), case-insensitive.
        ctx: optional RunContext for progress and cancellation.
        preset: a named parameter set of the detector (``segview methods NAME`` lists them);
            explicit ``params`` override it.
        **params: detector parameters; missing ones take the preset's values, then the defaults.

    Returns:
        DetectionResult with ``change_points``, ``steady_start``, ``tracks`` and ``stats``.

    Raises:
        UnknownMethodError, ParameterError, InputError.
    """
    spec = registry.get(method)
    coerced = spec.coerce(params, preset=preset)
    return run_spec(spec, series_or_values, coerced, ctx or NULL_CONTEXT)


def methods() -> list[DetectorSpec]:
    """Every registered detector with its parameter specifications."""
    return registry.all_specs()
