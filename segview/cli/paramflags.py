"""ParamSpec -> CLI parsing and help text (the same declaration that builds the GUI sliders)."""
from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

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


def add_preset_option(p: argparse.ArgumentParser) -> None:
    """``--preset NAME``: a named parameter set of the detector (``segview methods NAME``)."""
    p.add_argument("--preset", metavar="NAME",
                   help="named parameter set of the detector(s), e.g. faithful or tcpdbench "
                        "(`segview methods NAME` lists them); --param values override it")


def preset_values(spec: DetectorSpec, name: str | None) -> dict[str, Any]:
    """The values of ``spec``'s preset ``name`` ({} for None); ParameterError for an unknown one."""
    return dict(spec.preset(name).values) if name else {}


def format_value(v: Any) -> str:
    """A parameter value as it is typed on the command line."""
    return "auto" if v is None else str(v).lower() if isinstance(v, bool) else str(v)


def help_presets(spec: DetectorSpec) -> list[str]:
    """Lines listing ``spec``'s presets with their values."""
    if not spec.presets:
        return []
    lines = ["  presets (--preset NAME; --param values override them):"]
    for pr in spec.presets:
        values = " ".join(f"{k}={format_value(v)}" for k, v in pr.values.items()) or "(defaults)"
        lines.append(f"    {pr.name}: {values}")
        if pr.help:
            lines.append(f"      {pr.help}")
    return lines


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
    return "\n".join(lines + help_presets(spec))


def positive_int(text: str) -> int:
    """argparse type for counts such as ``--jobs``: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
