"""``segview session``: annotation sessions in the annotation database (create, list, progress,
import / export judgments, export a labeled dataset, aggregate).

Every sub-command takes ``--db URL`` (alias ``--db-url``: a URL such as
``postgresql://user:pw@host/db``, or a file path, taken literally); the default is ``$SEGVIEW_DB``
(a URL or a path, read by the same rules) or else the embedded SQLite file
``./segview-annotations.sqlite``. The location is printed on stderr, its password masked.
"""
from __future__ import annotations

import argparse
import json
import sys

from ..core import export as ex
from ..core.annotation.aggregate import RULES, TIE_POLICIES
from ..core.annotation.session import AnnotationSession, check_judge_names
from ..core.annotation.store import PROTOCOLS, Store
from ..core.annotation.tables import write_ground_truth_csv, write_judgments_csv
from ..core.errors import InputError
from .database import add_db_flag, announce, resolve
from .loading import add_columns_option, add_fill_missing_option, load_series


def _db(p: argparse.ArgumentParser) -> None:
    add_db_flag(p)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("session", help="annotation sessions: create, progress, import/export",
                       description="Annotation sessions in the annotation database: create one "
                                   "from data files, import/export judgments, show progress per "
                                   "judge, export a labeled dataset, aggregate.")
    ss = p.add_subparsers(dest="session_command", metavar="ACTION", required=True)

    c = ss.add_parser("create", help="create a session from data files or folders")
    c.add_argument("name")
    c.add_argument("data", nargs="+", help="series files or folders")
    add_columns_option(c)
    c.add_argument("--protocol", choices=PROTOCOLS, default="steady_state")
    c.add_argument("--rule", choices=RULES, default="general", help="aggregation rule")
    c.add_argument("--eps", type=float, default=50.0, help="DBSCAN eps in samples (default 50)")
    c.add_argument("--eps-frac", type=float, default=None,
                   help="eps as a fraction of each series' length instead (e.g. 0.0167)")
    c.add_argument("--min-samples", type=int, default=None, help="DBSCAN min_samples")
    c.add_argument("--tie", choices=TIE_POLICIES, default="disputed")
    c.add_argument("--calibration", type=int, default=0, metavar="N",
                   help="show each judge N series a second time, hidden at the end of their plan, "
                        "to measure drift and intra-rater agreement (default 0)")
    c.add_argument("--no-blind", action="store_true",
                   help="let judges see each other's labels while annotating")
    c.add_argument("--no-values", action="store_true",
                   help="do not copy the series values into the database (hashes only)")
    c.add_argument("--judge", action="append", default=[],
                   help="add a judge (repeatable); the GUI's session dialog takes the same list "
                        "(Judges: a, b, c), and a judge can also join later by name")
    c.add_argument("--adjudicator", action="append", default=[], help="add an adjudicator")
    c.add_argument("--judges-per-series", "-k", type=int, default=None, metavar="K",
                   help="assign each series to exactly K of the --judge judges (balanced, "
                        "seeded); default: every judge labels every series")
    c.add_argument("--assign-seed", type=int, default=None, metavar="SEED",
                   help="seed of the assignment (default: random, recorded)")
    c.add_argument("--shared-order", action="store_true",
                   help="with -k: every judge meets their series in one common order (pilots), "
                        "instead of each judge's own random order")
    add_fill_missing_option(c, "fill missing values (TCPD null) by this rule instead of "
                               "skipping the file")
    _db(c)

    asg = ss.add_parser("assign", help="assign each series to exactly K judges (balanced, seeded)")
    asg.add_argument("name")
    asg.add_argument("-k", "--judges-per-series", type=int, required=True, metavar="K")
    asg.add_argument("--seed", type=int, default=None)
    asg.add_argument("--shared-order", action="store_true",
                     help="one common order for every judge (pilots)")
    _db(asg)

    lst = ss.add_parser("list", help="list sessions")
    _db(lst)

    d = ss.add_parser("delete", help="remove a session with its series, judges and judgments")
    d.add_argument("name")
    d.add_argument("--force", action="store_true",
                   help="also when judges have labelled series (their judgments are removed too)")
    _db(d)

    rn = ss.add_parser("rename", help="give a session a new name")
    rn.add_argument("name")
    rn.add_argument("new_name")
    _db(rn)

    pr = ss.add_parser("progress", help="labelled / total per judge, and judges per series")
    pr.add_argument("name")
    pr.add_argument("--json", action="store_true")
    pr.add_argument("--series", action="store_true",
                    help="list every series with its coverage (judges labelled / meant to)")
    _db(pr)

    im = ss.add_parser("import", help="import judgments: an export folder, a judgments CSV "
                                      "(series_id,judge,steady,index) or a TCPD annotations.json")
    im.add_argument("name")
    im.add_argument("source")
    _db(im)

    ej = ss.add_parser("export-judgments",
                       help="write the judges' current labels and the adjudications as a CSV "
                            "(role column), which `segview aggregate` turns into the same ground "
                            "truth as `session aggregate`")
    ej.add_argument("name")
    ej.add_argument("--out", required=True)
    _db(ej)

    e = ss.add_parser("export", help="export the labeled dataset into a folder")
    e.add_argument("name")
    e.add_argument("--out", required=True, help="folder (created, must be empty)")
    e.add_argument("--format", choices=ex.FORMATS, default="csv")
    _db(e)

    a = ss.add_parser("aggregate", help="aggregate the session's judgments into ground truth")
    a.add_argument("name")
    a.add_argument("--out", required=True)
    a.add_argument("--rule", choices=RULES, default=None, help="default: the session's rule")
    a.add_argument("--stats", action="store_true",
                   help="print agreement statistics and the disagreements to review (JSON)")
    _db(a)
    p.set_defaults(func=run)


def _open_store(args: argparse.Namespace) -> Store:
    location = resolve(args)
    announce(location)  # before opening: a server that does not answer is named too
    return Store(location)


def _create(store: Store, args: argparse.Namespace) -> int:
    check_judge_names([*args.judge, *args.adjudicator], "--judge")  # before the session is written
    ds = load_series(args, args.data, fill_missing=args.fill_missing)
    for problem in ds.problems:
        print(f"segview: warning: skipped {problem}", file=sys.stderr)
    if not len(ds):
        raise InputError(", ".join(args.data), "no series found")
    settings = {"rule": args.rule, "eps": args.eps, "eps_frac": args.eps_frac,
                "min_samples": args.min_samples,
                "tie": args.tie, "blind": not args.no_blind, "calibration": args.calibration}
    s = AnnotationSession.create(store, args.name, ds, protocol=args.protocol, settings=settings,
                                 store_values=not args.no_values)
    s.add_judges(args.judge)  # as the session dialog's "Judges" list
    s.add_judges(args.adjudicator, role="adjudicator")
    print(f"session {s.name!r}: {len(s.items())} series, protocol {s.protocol}, "
          f"{len(s.judges())} judge(s)")
    if args.judges_per_series is not None:
        _assign(s, args.judges_per_series, args.assign_seed, args.shared_order)
    return 0


def _assign(s: AnnotationSession, k: int, seed: int | None, shared: bool) -> int:
    got = s.assign(k, seed, shared_order=shared)
    sizes = sorted({len(v) for v in got.values()})
    print(f"assigned {len(s.items())} series to {k} of {len(got)} judges each "
          f"({'-'.join(map(str, sizes))} series per judge, "
          f"{'shared order' if shared else 'own order per judge'})")
    return 0


def _delete(store: Store, args: argparse.Namespace) -> int:
    sid = int(store.session_row(args.name).id)
    labelled = [e for e in store.session_history(sid) if e.kind in ("label", "clear")]
    if labelled and not args.force:
        raise InputError(args.name, f"judges have made {len(labelled)} judgment(s) in this session; "
                                    "export them first, then pass --force to delete it")
    store.delete_session(args.name)
    print(f"session {args.name!r} deleted ({len(labelled)} judgment(s) removed)")
    return 0


def _progress(s: AnnotationSession, as_json: bool, per_series: bool = False) -> int:
    roles = {j.name: j.role for j in s.judges()}
    prog = s.progress()
    cov = s.coverage()
    if as_json:
        out = {n: {"role": roles[n], "labelled": d, "total": t} for n, (d, t) in prog.items()}
        print(json.dumps({"judges": out, "series": {sid: {"judges": d, "wanted": w}
                                                    for sid, (d, w) in cov.items()}}
                         if per_series else out, indent=2))
        return 0
    print(f"session {s.name!r} ({s.protocol}, {len(s.items())} series)")
    if not prog:
        print("  no judges yet")
    width = max((len(n) for n in prog), default=5)
    for name, (done, total) in prog.items():
        pct = 100.0 * done / total if total else 0.0
        print(f"  {name.ljust(width)}  {roles[name]:11s} {done:6d} / {total:<6d} {pct:5.1f} %")
    full = sum(1 for d, w in cov.values() if d >= w)
    print(f"coverage: {full} of {len(cov)} series have all their judges "
          f"({', '.join(f'{n} with {d}' for d, n in _histogram(cov))})")
    if per_series:
        width = max((len(sid) for sid in cov), default=6)
        for sid, (d, w) in cov.items():
            print(f"  {sid.ljust(width)}  {d} / {w} judges{'' if d >= w else '  (missing)'}")
    return 0


def _histogram(cov: dict[str, tuple[int, int]]) -> list[tuple[int, int]]:
    counts: dict[int, int] = {}
    for d, _ in cov.values():
        counts[d] = counts.get(d, 0) + 1
    return sorted(counts.items(), reverse=True)


def run(args: argparse.Namespace) -> int:
    with _open_store(args) as store:
        cmd = args.session_command
        if cmd == "create":
            return _create(store, args)
        if cmd == "list":
            for name in store.session_names():
                try:
                    s = AnnotationSession.open(store, name)
                except InputError as err:  # e.g. an interrupted creation by an older segview
                    print(f"{name}\t(unusable: {err.reason})")
                    continue
                print(f"{name}\t{s.protocol}\t{len(s.items())} series\t{len(s.judges())} judges")
            return 0
        if cmd == "delete":
            return _delete(store, args)
        if cmd == "rename":
            store.rename_session(args.name, args.new_name)
            print(f"session {args.name!r} renamed to {args.new_name!r}")
            return 0
        s = AnnotationSession.open(store, args.name)
        if cmd == "progress":
            return _progress(s, args.json, args.series)
        if cmd == "assign":
            return _assign(s, args.judges_per_series, args.seed, args.shared_order)
        if cmd == "import":
            n = ex.import_judgments(s, args.source)
            print(f"imported {n} judgment(s) into session {s.name!r}")
            return 0
        if cmd == "export-judgments":
            rows = [(r["series_id"], r["judge"], r["steady"], r["index"], r["change_points"],
                     r["role"]) for r in ex.judgments_table(s) if not r["repeat"]]
            write_judgments_csv(args.out, rows)
            n_adj = sum(1 for r in rows if r[5] == "adjudicator")
            print(f"{len(rows) - n_adj} judgment(s) and {n_adj} adjudication(s) -> {args.out}")
            return 0
        if cmd == "export":
            folder = ex.export_session(s, args.out, args.format)
            print(f"exported session {s.name!r} ({args.format}) -> {folder}")
            return 0
        results = s.aggregate(**({"rule": args.rule} if args.rule else {}))
        write_ground_truth_csv(args.out, results)
        msg = sys.stderr if args.stats else sys.stdout  # --stats: stdout holds the JSON only
        print(f"{len(results)} series aggregated -> {args.out}", file=msg)
        short = s.under_covered()
        if short:
            print(f"segview: warning: {len(short)} series have fewer judgments than judges meant "
                  f"to label them: " + ", ".join(f"{sid} ({d}/{w})" for sid, (d, w) in
                                                 list(short.items())[:10])
                  + (" ..." if len(short) > 10 else ""), file=sys.stderr)
        if args.stats:
            _print_stats(s, results, short)
        return 0


def _print_stats(s: AnnotationSession, results: list,
                 short: dict[str, tuple[int, int]] | None = None) -> None:
    from ..core.annotation import agreement
    from .aggregate import json_clean

    votes = {sid: {j: bool(lab.steady) for j, lab in per.items()}
             for sid, per in s.all_labels().items()}
    stats = agreement.summary(results, votes)
    stats["review"] = [{"series_id": d.series_id, "severity": d.severity,
                        "reasons": list(d.reasons)} for d in agreement.disagreements(results)]
    stats["under_covered"] = {sid: {"judges": d, "wanted": w} for sid, (d, w) in
                              (short or {}).items()}
    print(json.dumps(json_clean(stats), indent=2))
