"""``segview compare BEFORE AFTER [--json OUT] [--method barrett|kbkssd|cpssd] [--seed N]``.

BEFORE and AFTER are benchmark result files or folders (two VMs, two commits, two machines), each
analysed as ``segview warmup`` does, or the JSON that ``segview warmup --json`` wrote (its analysis
is used as it is: the analysis options here do not apply to it). For every benchmark on both sides: the class before and
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
from pathlib import Path

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


def read_warmup_json(path: str) -> list | None:  # type: ignore[type-arg]
    """The analyses in ``path`` when it is a ``segview warmup --json`` document, else None (a
    folder, another format: the readers take it).

    Raises:
        DataFormatError: it is such a document but broken (a key twice, a field missing...).
    """
    from ..core.errors import DataFormatError
    from ..core.strictjson import DuplicateKeyError, strict_object
    from ..core.warmup import from_json, is_warmup_json

    p = Path(path)
    if not p.is_file():
        return None
    try:
        with open(p, "rb") as fh:
            if not fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
                return None          # JMH's arrays, CSV, gzip...: not ours, no full parse
            fh.seek(0)
            doc = json.loads(fh.read().decode("utf-8-sig"), object_pairs_hook=strict_object)
    except DuplicateKeyError as err:
        raise DataFormatError(path, f"key {err.key!r} given twice in one object") from None
    except (ValueError, UnicodeDecodeError, OSError):
        return None          # not JSON: one of the readers' formats, or their named error
    if not is_warmup_json(doc):
        return None
    return from_json(doc, path)


def _side(args: argparse.Namespace, path: str, params: dict, label: str
          ) -> tuple[list, int]:  # type: ignore[type-arg]
    """One side's analyses and failures: read from a warmup JSON, or loaded and analysed."""
    results = read_warmup_json(path)
    if results is None:
        _, results, failures = load_and_analyse(args, [path], params, label)
        return results, failures
    methods = sorted({r.method for r in results})
    if methods != [args.method]:
        print(f"segview: {label}: the analysis in {path} (method {', '.join(methods)}) is used as "
              "it is; --method and the analysis options do not apply to it", file=sys.stderr)
    return results, 0


def run(args: argparse.Namespace) -> int:
    from ..core.warmup.compare import compare

    params = analysis_params(args)
    outs = check_outputs(args, ("json",))
    if args.method != "barrett":
        from ..core import registry
        registry.get(args.method)
    before, fb = _side(args, args.before, params, "before")
    after, fa = _side(args, args.after, params, "after")
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
