"""``segview methods``: list detectors and their parameters."""
from __future__ import annotations

import argparse
import json

from ..core import registry
from .paramflags import help_params


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("methods", help="list detectors and their parameters")
    p.add_argument("name", nargs="?", help="show one detector's parameters and presets")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _spec_dict(spec: registry.DetectorSpec) -> dict[str, object]:
    return {
        "name": spec.name, "label": spec.label, "version": spec.version,
        "produces": spec.produces, "citation": spec.citation,
        "params": [{"name": p.name, "kind": p.kind, "default": p.default, "low": p.low,
                    "high": p.high, "step": p.step, "unit": p.unit, "help": p.help,
                    "choices": list(p.choices), "stage": p.stage} for p in spec.params],
        "presets": [{"name": pr.name, "values": dict(pr.values), "help": pr.help}
                    for pr in spec.presets],
    }


def run(args: argparse.Namespace) -> int:
    specs = [registry.get(args.name)] if args.name else registry.all_specs()
    if args.json:
        print(json.dumps([_spec_dict(s) for s in specs], indent=2))
    elif args.name:
        print(help_params(specs[0]))
    else:
        width = max((len(s.name) for s in specs), default=4)
        for s in specs:
            print(f"{s.name.ljust(width)}  {s.produces:13s}  {s.label}")
    return 0
