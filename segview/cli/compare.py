"""``segview compare BEFORE AFTER [--json OUT] [--method barrett|kbkssd|cpssd] [--seed N]``.

BEFORE and AFTER are benchmark result files or folders (two VMs, two commits, two machines), each
analysed as ``segview warmup`` does. For every benchmark on both sides: the class before and
after, the steady-state performance ratio AFTER / BEFORE with a bootstrap interval (Kalibera &
Jones' two-level resampling of executions and iterations on each side, seeded) and a verdict:
*faster* or *slower* when the interval excludes 1 (read in the benchmark's direction: for a time,
above 1 is slower; for a throughput, above 1 is faster), else *no significant difference*.
The interval's default coverage is 95 %
(``--confidence``): with the 5 to 30 executions of a typical run, the variation between processes
makes 99 % intervals of a ratio wide. Benchmarks on one side only are listed. Units that disagree are converted when both are time
units, else named as an error for that benchmark.

Exit codes: 0 all compared, 1 some benchmarks or files could not be compared (the rest is
written), 2 usage or input error.
"""
from __future__ import annotations

import argparse
import json
import sys

from ..core.atomic import write_text
from .warmup import (
    add_analysis_options,
    analysis_params,
    check_outputs,
    load_and_analyse,
)

HELP = "compare two result sets: class changes, steady performance ratio with CI, verdict"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help=HELP, description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before", metavar="BEFORE", help="result file or folder before")
    p.add_argument("after", metavar="AFTER", help="result file or folder after")
    add_analysis_options(p, 0.95, "the ratio's interval (default 0.95, Kalibera & Jones' level "
                                  "for comparisons)")
    p.add_argument("--json", metavar="OUT", help="write the comparison as JSON")
    p.set_defaults(func=run)


def _g(v: float | None) -> str:
    return "-" if v is None else f"{v:.4g}"


def format_comparison(comp) -> str:
    head = ["benchmark", "before", "after", "ratio after/before [CI]", "verdict"]
    table = []
    for b in comp.benchmarks:
        cls = f"{b.before_class or '-'}"
        ratio = ("-" if b.ratio is None or b.ci is None else
                 f"{_g(b.ratio)} [{_g(b.ci[0])}, {_g(b.ci[1])}]")
        what = b.verdict if not b.error else "error"
        if b.reason and not b.error:
            what += f" ({b.reason})"
        table.append([b.name, cls, b.after_class or "-", ratio, what])
    widths = [max(len(x) for x in col) for col in zip(head, *table)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
             for row in [head, *table]]
    for name in comp.only_before:
        lines.append(f"only before: {name}")
    for name in comp.only_after:
        lines.append(f"only after: {name}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from ..core.warmup.compare import compare

    params = analysis_params(args)
    outs = check_outputs(args, ("json",))
    if args.method != "barrett":
        from ..core import registry
        registry.get(args.method)
    _, before, fb = load_and_analyse(args, [args.before], params, "before")
    _, after, fa = load_and_analyse(args, [args.after], params, "after")
    kw = {k: params[k] for k in ("resamples", "confidence", "seed") if k in params}
    if not kw.get("resamples", 1):
        kw["resamples"] = 10000   # a ratio needs its interval
    comp = compare(before, after, **kw)
    failures = fb + fa
    for b in comp.benchmarks:
        if b.error:
            print(f"segview: benchmark {b.name!r}: {b.error}", file=sys.stderr)
            failures += 1
        elif b.reason:
            print(f"segview: benchmark {b.name!r}: not compared: {b.reason}", file=sys.stderr)
    for key, path in outs:
        write_text(path, json.dumps({**comp.to_dict(), "method": args.method,
                                      "before": args.before, "after": args.after},
                                     indent=1) + "\n")
    sys.stdout.write(format_comparison(comp))
    return 1 if failures else 0
