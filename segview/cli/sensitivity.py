"""``segview sensitivity PATH... --truth GT.csv --method NAME [--range NAME=LOW:HIGH[:int|odd|float]]
[--fix NAME=VALUE] [-N 512] [--seed S] [--format text|json] [--out FILE]``.

Sobol first, second and total indices (SALib) with 95 % bootstrap intervals of the objective
``Σ (g − p)²`` over the truth-steady series (``p = −1`` when the detector says never steady), as in
the KB-KSSD paper. Without ``--range`` the spec's problem is used (KB-KSSD: five parameters, 85/2
percentiles). ``N`` base samples give ``N·(2D+2)`` detector configurations, each run on every
truth-steady series through the batch engine (cached; ``--scheduler`` for Dask).
"""
from __future__ import annotations

import argparse
import json
import sys

from ..core import atomic
from ..core import registry
from ..core.evaluation import sensitivity as sens
from ..core.evaluation.tables import read_truth
from .loading import add_search_inputs, load_series
from .evaluate import add_batch_options, batch_kwargs
from .paramflags import add_preset_option, parse_param_args, preset_values
from .progress import ProgressBar


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sensitivity", help="Sobol sensitivity analysis of a detector's parameters",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_search_inputs(p)
    p.add_argument("--range", action="append", default=[], metavar="NAME=LOW:HIGH[:KIND]",
                   help="varied parameter (repeatable); KIND int, odd or float")
    p.add_argument("--fix", action="append", default=[], metavar="NAME=VALUE",
                   help="parameter held fixed (repeatable)")
    p.add_argument("-N", "--base-samples", type=int, default=512,
                   help="SALib base sample count N (power of two; default 512)")
    p.add_argument("--seed", type=int, default=None, help="seed for sampling and bootstrap")
    p.add_argument("--objective", choices=("sse", "abs"), default="sse")
    p.add_argument("--no-second-order", action="store_true", help="skip S2 (N·(D+2) runs)")
    p.add_argument("--resamples", type=int, default=100, help="bootstrap resamples (default 100)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--out", help="output file (default: standard output)")
    add_preset_option(p)
    add_batch_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    spec = registry.get(args.method)
    truth = read_truth(args.truth)
    series = list(load_series(args, args.paths))
    factors = [sens.parse_range(r) for r in args.range] or None
    fixed = {**preset_values(spec, args.preset), **parse_param_args(args.fix)}
    with ProgressBar(1, "sensitivity") as bar:
        def progress(done: int, total: int) -> None:
            bar.total = max(total, 1)
            bar.update(done - bar.done)
        res = sens.run_sobol(spec, series, truth, factors, fixed, n_base=args.base_samples,
                             seed=args.seed, objective=args.objective,
                             calc_second_order=not args.no_second_order,
                             num_resamples=args.resamples, progress=progress, **batch_kwargs(args))
    text = (json.dumps(res.to_dict(), indent=1) + "\n" if args.format == "json"
            else sens.format_sobol_text(res))
    if args.out:
        atomic.write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0
