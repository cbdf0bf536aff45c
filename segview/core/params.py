"""Declarative parameter specifications.

A detector declares each parameter once as a :class:`ParamSpec`; the same declaration builds the
GUI's slider or combo box, the CLI's ``--param`` parsing and help text, the hypothesis strategies of
the property tests, and validates values in :meth:`ParamSpec.coerce`.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .errors import ParameterError

Kind = Literal["int", "float", "bool", "str"]
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a detector.

    Attributes:
        name: identifier used in code, CLI (``--param name=value``) and saved sessions.
        kind: ``"int"``, ``"float"``, ``"bool"`` or ``"str"`` (a choice when ``choices`` is set).
        default: the faithful (published) default.
        low, high: inclusive bounds for numbers (None = unbounded).
        step: slider step for numbers.
        unit: shown in labels, e.g. ``"samples"``.
        help: one sentence; the only place a parameter is documented.
        choices: allowed values for ``str`` parameters.
        log: the GUI slider is logarithmic.
        stage: ``"prepare"`` when changing it invalidates the detector's expensive cached stage.
        aliases: named values a number parameter also accepts (e.g. ``"bic"`` for a penalty).
        optional: ``None`` is an accepted value (meaning "automatic").
        label: display name; defaults to the name with underscores as spaces.
    """

    name: str
    kind: Kind
    default: Any
    low: float | None = None
    high: float | None = None
    step: float | None = None
    unit: str = ""
    help: str = ""
    choices: tuple[str, ...] = ()
    log: bool = False
    stage: Literal["prepare", "decide"] = "decide"
    aliases: tuple[str, ...] = ()
    optional: bool = False
    label: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("int", "float", "bool", "str"):
            raise ValueError(f"ParamSpec {self.name}: bad kind {self.kind!r}")
        if self.default is not None or not self.optional:
            self.coerce(self.default)  # a spec whose default is invalid is a programming error

    @property
    def display(self) -> str:
        text = self.label or self.name.replace("_", " ").capitalize()
        return f"{text} [{self.unit}]" if self.unit else text

    def describe(self) -> str:
        """Help text with default and range, for CLI help and tooltips."""
        parts = [self.help.rstrip(".")] if self.help else []
        extra = f"default {self.default!r}"
        if self.unit:
            extra += f" {self.unit}"
        if self.choices:
            extra += f"; one of {', '.join(self.choices)}"
        elif self.low is not None or self.high is not None:
            lo = "-inf" if self.low is None else _fmt(self.low)
            hi = "inf" if self.high is None else _fmt(self.high)
            extra += f"; range {lo} to {hi}"
        if self.aliases:
            extra += f"; or {', '.join(self.aliases)}"
        if self.stage == "prepare":
            extra += "; slow stage"
        parts.append(f"({extra})")
        return " ".join(parts)

    def coerce(self, raw: Any) -> Any:
        """Convert ``raw`` (a Python value or a CLI string) to this parameter's type and check it.

        Raises:
            ParameterError: wrong type, not a choice, or out of range.
        """
        if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("none", "auto")
                           and self.optional):
            if self.optional:
                return None
            raise ParameterError(self.name, "a value is required")
        if isinstance(raw, str) and self.kind != "str":
            text = raw.strip()
            if text.lower() in self.aliases:
                return text.lower()
            raw = text
        if self.kind == "bool":
            return self._coerce_bool(raw)
        if self.kind == "str":
            value = str(raw)
            if self.choices and value not in self.choices:
                raise ParameterError(self.name, f"{_short(value)} is not one of {', '.join(self.choices)}")
            return value
        if isinstance(raw, bool):
            raise ParameterError(self.name, f"expected a number, got {_short(raw)}")
        return self._coerce_number(raw)

    def _coerce_bool(self, raw: Any) -> bool:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, (int, float)) and raw in (0, 1):
            return bool(raw)
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ParameterError(self.name, f"expected true or false, got {_short(raw)}")

    def _coerce_number(self, raw: Any) -> int | float:
        try:
            value = float(raw)
        except OverflowError:
            raise ParameterError(self.name, f"{_short(raw)} is too large for a number") from None
        except (TypeError, ValueError):
            alias = f" or one of {', '.join(self.aliases)}" if self.aliases else ""
            raise ParameterError(self.name, f"expected a number{alias}, got {_short(raw)}") from None
        if not math.isfinite(value):
            raise ParameterError(self.name, f"must be finite, got {_short(raw)}")
        if self.kind == "int":
            if value != int(value):
                raise ParameterError(self.name, f"expected a whole number, got {_short(raw)}")
            value = int(value)
        if self.low is not None and value < self.low:
            raise ParameterError(self.name, f"{_short(value)} is below the minimum {_fmt(self.low)}")
        if self.high is not None and value > self.high:
            raise ParameterError(self.name, f"{_short(value)} is above the maximum {_fmt(self.high)}")
        return value


def _short(raw: Any) -> str:
    """``repr(raw)`` cut to a readable length (a 400-digit integer is not an error message)."""
    text = repr(raw)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(v)


class Params(Mapping[str, Any]):
    """An immutable, hashable mapping of coerced parameter values (cache keys, generation checks)."""

    __slots__ = ("_items", "_dict", "_hash")

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        d = dict(values or {})
        self._items = tuple(sorted(d.items()))
        self._dict = d
        self._hash = hash(self._items)

    def __getitem__(self, key: str) -> Any:
        return self._dict[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._dict)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Params):
            return self._items == other._items
        return isinstance(other, Mapping) and self._dict == dict(other)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._items)
        return f"Params({inner})"

    def replace(self, **changes: Any) -> "Params":
        d = dict(self._dict)
        d.update(changes)
        return Params(d)

    def subset(self, names: set[str] | frozenset[str]) -> "Params":
        return Params({k: v for k, v in self._dict.items() if k in names})


def coerce_params(specs: tuple[ParamSpec, ...], raw: Mapping[str, Any],
                  method: str | None = None) -> Params:
    """Type and check ``raw`` against ``specs``; missing parameters take their defaults.

    Raises:
        ParameterError: an unknown name, or a value the spec rejects (the message names the method).
    """
    by_name = {s.name: s for s in specs}
    for key in raw:
        if key not in by_name:
            known = ", ".join(sorted(by_name)) or "none"
            raise ParameterError(key, f"unknown parameter (known: {known})", method)
    out: dict[str, Any] = {}
    for spec in specs:
        try:
            out[spec.name] = spec.coerce(raw[spec.name]) if spec.name in raw else spec.default
        except ParameterError as err:
            raise ParameterError(err.name, err.reason, method) from None
    return Params(out)


@dataclass(frozen=True)
class Preset:
    """A named parameter set of a detector (e.g. ``faithful``: its paper's configuration).

    ``values`` overrides the ParamSpec defaults; parameters it does not name keep their defaults.
    """

    name: str
    values: Mapping[str, Any]
    help: str = ""


def parse_assignment(text: str) -> tuple[str, str]:
    """Split a CLI ``KEY=VALUE`` argument."""
    if "=" not in text:
        raise ParameterError(text, "expected KEY=VALUE")
    key, value = text.split("=", 1)
    key = key.strip().replace("-", "_")
    if not key:
        raise ParameterError(text, "empty parameter name")
    return key, value.strip()
