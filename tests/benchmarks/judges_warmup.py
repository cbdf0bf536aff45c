"""Issue 27 point 5: ``barrett``'s steady verdict and onset scored against the judges' aggregated
truth on the 350 JMH series (one execution each), next to KB-KSSD and CP-SSD, the way the KB-KSSD
paper scores them (``shared/spec/evaluation.md`` §1-2: agreement on steady / never steady, false
positives and negatives, onset error ``e = g - p``).

    PYTHONPATH=. python tests/benchmarks/judges_warmup.py [--jmh ../shared/data/jmh]
        [--limit N] [--json out.json] [--markdown out.md]

Nothing is scored here: the predictions go through segview's own evaluation
(:func:`segview.core.evaluation.tables.read_truth` / ``read_predictions`` and
:func:`segview.core.evaluation.evaluate.evaluate_onsets`, the code behind ``segview evaluate``).
KB-KSSD and CP-SSD are the columns ``kbkssd_reference`` (the authors' implementation, paper
parameters) and ``cpssd_published`` of ``labels.csv``, as ``tests/golden/test_evaluate_jmh.py``
scores them; ``barrett`` is the registered detector (``segview.detect``) in several
configurations of its ``delta``.

The series are seconds per operation (``unit=s``), so warmup_stats' absolute ``delta = 0.001 s``
applies as it is: the *faithful* row. Most series' iterations last nanoseconds to microseconds,
where 1 ms is thousands of times the mean and every segment counts as equivalent to the last one;
the scale-appropriate rows use warmup_stats' own ``D%`` form (``delta_mode=percent``: D percent of
the fastest segment mean).
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

#: barrett configurations scored: (row name, detector parameters)
CONFIGS = (
    ("barrett (delta 1 ms, faithful)", {"unit": "s", "delta": 0.001}),
    ("barrett (delta 1 %)", {"unit": "s", "delta": 1.0, "delta_mode": "percent"}),
    ("barrett (delta 5 %)", {"unit": "s", "delta": 5.0, "delta_mode": "percent"}),
)
REFERENCES = (("KB-KSSD (reference)", "kbkssd_reference"),
              ("CP-SSD (published)", "cpssd_published"))


def run_barrett(series: list, configs: tuple = CONFIGS) -> dict[str, dict[str, tuple[int, str]]]:
    """``{config name: {series id: (steady index or -1, class)}}``: the registered detector
    (``segview.detect(series, "barrett", ...)``), its ``steady_start`` and its class."""
    import segview

    out: dict[str, dict[str, tuple[int, str]]] = {name: {} for name, _ in configs}
    for k, s in enumerate(series, start=1):
        for name, params in configs:
            res = segview.detect(s, "barrett", **params)
            onset = res.steady_start
            out[name][s.id] = (-1 if onset is None else int(onset),
                               str(res.stats["classification"]))
        if k % 25 == 0:
            print(f"{k}/{len(series)} series", file=sys.stderr, flush=True)
    return out


def evaluate(jmh: Path, onsets: dict[str, dict[str, int]], ids: list[str],
             configs: tuple = CONFIGS) -> dict:
    from segview.core.evaluation.evaluate import evaluate_onsets
    from segview.core.evaluation.tables import read_predictions, read_truth

    truth = {k: v for k, v in read_truth(jmh / "labels.csv").items() if k in set(ids)}
    with tempfile.TemporaryDirectory() as tmp:
        pred_path = Path(tmp) / "pred.csv"
        with open(pred_path, "w", newline="") as fh:  # segview detect's CSV
            w = csv.writer(fh)
            w.writerow(["series_id", "method", "steady_index", "change_points", "runtime_ms"])
            for method, by_id in onsets.items():
                for sid in ids:
                    w.writerow([sid, method, by_id[sid], "", 0])
        pred = read_predictions([pred_path])
    refs = [name for name, _ in REFERENCES]
    out = {"own": evaluate_onsets(truth, pred.onsets, list(onsets), mode="own").to_json_dict(),
           "paper": evaluate_onsets(truth, pred.onsets, refs, mode="joint").to_json_dict(),
           "joint": {}}
    for name, _ in configs:  # paired with the paper's two methods: truth and all three steady
        out["joint"][name] = evaluate_onsets(truth, pred.onsets, refs + [name],
                                             mode="joint").to_json_dict()
    return out


def markdown(res: dict, cls: dict[str, dict[str, str]], steady: dict[str, bool],
             n: int, seconds: float) -> str:
    own = res["own"]["methods"]
    lines = [f"Series: {n} ({sum(steady.values())} steady by the judges). barrett: "
             f"{seconds:.0f} s wall for {len(CONFIGS)} configurations.", "",
             "| method | agreement | FP | FN | says never steady | n scored (own) | "
             "mean abs(e) | median e | sum abs(e) |", "|---|---|---|---|---|---|---|---|---|"]
    for name, row in own.items():
        d = res["own"]["details"][name]
        never = n - row["true_positive"] - row["false_positive"]
        lines.append(f"| {name} | {row['agreement']} ({100 * row['agreement'] / n:.1f} %) | "
                     f"{row['false_positive']} | {row['false_negative']} | {never} | "
                     f"{row['n_common']} | {row['mean_abs_error']:.1f} | "
                     f"{d['median_raw_error']:.0f} | {row['total_abs_error']} |")
    lines += ["", "Onset error on the series where the truth, KB-KSSD, CP-SSD and the barrett "
              "row are all steady (paired):", "",
              "| barrett row | n | KB-KSSD sum abs(e) | CP-SSD sum abs(e) | barrett sum abs(e) | "
              "barrett mean abs(e) | barrett median e |", "|---|---|---|---|---|---|---|"]
    for name, _ in CONFIGS:
        m = res["joint"][name]["methods"]
        d = res["joint"][name]["details"][name]
        kb, cp = (m[r] for r, _ in REFERENCES)
        lines.append(f"| {name} | {m[name]['n_common']} | {kb['total_abs_error']} | "
                     f"{cp['total_abs_error']} | {m[name]['total_abs_error']} | "
                     f"{m[name]['mean_abs_error']:.1f} | {d['median_raw_error']:.0f} |")
    p = res["paper"]["methods"]
    lines += ["", "The paper's own set (truth, KB-KSSD and CP-SSD steady): n = "
              f"{p[REFERENCES[0][0]]['n_common']}, sum abs(e) KB-KSSD "
              f"{p[REFERENCES[0][0]]['total_abs_error']}, CP-SSD "
              f"{p[REFERENCES[1][0]]['total_abs_error']}.", "",
              "barrett's classes against the judges (steady / never steady):", "",
              "| barrett row | flat | warmup | slowdown | no steady state |",
              "|---|---|---|---|---|"]
    for name, _ in CONFIGS:
        cells = []
        for c in ("flat", "warmup", "slowdown", "no steady state"):
            st = sum(1 for sid, k in cls[name].items() if k == c and steady[sid])
            ns = sum(1 for sid, k in cls[name].items() if k == c and not steady[sid])
            cells.append(f"{st} / {ns}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jmh", default=str(REPO / ".." / "shared" / "data" / "jmh"))
    ap.add_argument("--limit", type=int, default=None, help="first N series only")
    ap.add_argument("--json", help="write the evaluation and the classes as JSON")
    ap.add_argument("--markdown", help="write the tables as Markdown")
    args = ap.parse_args(argv)
    import segview

    jmh = Path(args.jmh)
    series = sorted(segview.load(jmh / "series"), key=lambda s: s.id)[:args.limit]
    ids = [s.id for s in series]
    with open(jmh / "labels.csv", newline="") as fh:
        labels = {r["series_id"]: r for r in csv.DictReader(fh)}
    steady = {sid: labels[sid]["steady"] == "1" for sid in ids}
    t0 = time.monotonic()
    got = run_barrett(series)
    seconds = time.monotonic() - t0
    cls = {name: {sid: v[1] for sid, v in by.items()} for name, by in got.items()}
    onsets = {name: {sid: v[0] for sid, v in by.items()} for name, by in got.items()}
    for name, col in REFERENCES:
        onsets[name] = {sid: int(labels[sid][col]) for sid in ids}
    res = evaluate(jmh, onsets, ids)
    text = markdown(res, cls, steady, len(ids), seconds)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    if args.json:
        doc = {"evaluation": res, "classes": cls,
               "class_counts": {k: dict(Counter(v.values())) for k, v in cls.items()},
               "onsets": onsets, "configs": dict(CONFIGS)}
        Path(args.json).write_text(json.dumps(doc, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
