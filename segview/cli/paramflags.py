"""ParamSpec -> CLI parsing and help text (the same declaration that builds the GUI sliders)."""
from __future__ import annotations

from collections.abc import Iterable

from ..core.params import parse_assignment
from ..core.registry import DetectorSpec


def parse_param_args(items: Iterable[str] | None) -> dict[str, str]:
    """``["t_crit=4", "prob-threshold=0.9"]`` -> ``{"t_crit": "4", "prob_threshold": "0.9"}``."""
    out: dict[str, str] = {}
    for item in items or ():
        key, value = parse_assignment(item)
        out[key] = value
    return out


def params_for(spec: DetectorSpec, raw: dict[str, str], *, strict: bool = True) -> dict[str, str]:
    """The subset of ``raw`` that ``spec`` declares (all of it when ``strict``, so unknown names
    reach ``spec.coerce`` and raise a ParameterError naming the method)."""
    if strict:
        return dict(raw)
    names = {p.name for p in spec.params}
    return {k: v for k, v in raw.items() if k in names}


def help_params(spec: DetectorSpec) -> str:
    """Text listing a detector's parameters, defaults, ranges and units."""
    lines = [f"{spec.name}: {spec.label} (version {spec.version}, produces {spec.produces})"]
    if spec.citation:
        lines.append(f"  {spec.citation}")
    if spec.description:
        lines.append(f"  {spec.description}")
    width = max((len(p.name) for p in spec.params), default=0)
    for p in spec.params:
        lines.append(f"  --param {p.name.ljust(width)}=VALUE  {p.kind:5s} {p.describe()}")
    return "\n".join(lines)
