"""Issue 17's table, re-measured: hostile inputs per area, how many were handled.

A case is *handled* when it ends in a correct result or in one of segview's named errors (a
RecoverableError, or for the CLI an exit code 0/1/2 without a traceback); it *fails* on any other
exception, a hang (a per-case alarm), or output that breaks segview's promises (indices out of
range, non-finite loaded values). Run: ``python tests/benchmarks/fuzz_table.py [--quick]``.
"""
from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import os
import signal
import sqlite3
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import segview  # noqa: E402
from segview.cli.main import main  # noqa: E402
from segview.core.errors import RecoverableError  # noqa: E402


class Hang(Exception):
    pass


def _alarm(*_):
    raise Hang()


signal.signal(signal.SIGALRM, _alarm)


def attempt(fn, timeout=60):
    """'ok' | 'handled' | 'FAILED: ...'"""
    signal.alarm(timeout)
    try:
        fn()
        return "ok"
    except RecoverableError:
        return "handled"
    except Hang:
        return "FAILED: hang"
    except Exception as err:  # noqa: BLE001
        return f"FAILED: {type(err).__name__}: {str(err)[:120]}"
    finally:
        signal.alarm(0)


# ------------------------------------------------------------------------------ loaders

def loader_cases(tmp: Path):
    numbers = [1.0, 2.5, -3.0, 0.0, 1e-320, 1e308, 10**400, "1", None, True, [], {}, "nan",
               float("nan"), float("inf")]
    cases = []

    def add(area, name, text=None, raw=None, make=None):
        p = tmp / area / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if make is not None:
            make(p)
        elif raw is not None:
            p.write_bytes(raw)
        else:
            p.write_text(text)
        cases.append((area, p))

    # JMH fork lists
    for k, v in enumerate(numbers):
        add("jmh", f"val{k}.json", json.dumps([[1.0, v, 3.0]], allow_nan=True) if not (
            isinstance(v, int) and abs(v) > 1e300) else "[[1.0, " + str(v) + ", 3.0]]")
    for k, t in enumerate(["[]", "[[]]", "[[],[1]]", "[1,2,3]", "[[1,2],[3,[4]]]", "{}", "null",
                           "[[1,2,3]", "[" * 3000 + "]" * 3000, "[[1,2,3]]garbage", '"text"',
                           "[[1e999]]", "[[-1e999]]", "[[NaN]]", "[[Infinity]]", "\ufeff[[1,2]]",
                           "[[1,2]]\n\n", " ", "[[" + ",".join(["1"] * 100000) + "]]",
                           "[[1.5, 2.5, 3.5], [4.5]]"]):
        add("jmh", f"shape{k}.json", t)
    # JMH -rf json results
    base = {"benchmark": "b.M.m", "mode": "thrpt", "primaryMetric": {"score": 1, "scoreUnit": "ops/s",
                                                                     "rawData": [[1.0, 2.0, 3.0]]}}
    variants = [base, {**base, "primaryMetric": 5}, {**base, "primaryMetric": None},
                {**base, "primaryMetric": {"rawData": "x"}}, {**base, "primaryMetric": {"rawData": []}},
                {**base, "primaryMetric": {"rawData": [[]]}}, {**base, "primaryMetric": {"rawData": [[1, "a"]]}},
                {**base, "primaryMetric": {"rawData": [[1, None]]}}, {**base, "params": {"n": [1, 2]}},
                {**base, "benchmark": None}, {**base, "benchmark": 5}, {"mode": "thrpt"},
                {**base, "primaryMetric": {"rawData": [[1, 2]], "scoreUnit": 7}},
                {**base, "primaryMetric": {"rawData": [[1e400 if False else 1e308, 1.0]]}}]
    for k, v in enumerate(variants):
        add("jmh-rf", f"r{k}.json", json.dumps([v]))
    add("jmh-rf", "r_many.json", json.dumps([base] * 50))
    add("jmh-rf", "r_mixed.json", json.dumps([base, 5, None, "x"]))
    # CSV
    csvs = ["", ",,,\n", "a\n", "a\n1\n", "a,b\n1\n", "a\n" + "1" * 200000 + "\n", "a\nx\n",
            "a\nnan\n", "a\ninf\n", "a\n1e400\n", "x,a\n1,2\n1,3\n", "x,a\nb,2\n",
            "series_id,index,value\ns,0,1\ns,1,2\n", "series_id,index,value\ns,a,1\n",
            "series_id,index,value\ns,0,1\ns,0,2\n", "series_id,index,value\ns,5,1\n",
            'a\n"1\n', "a;b\n1;2\n", "a\tb\n1\t2\n", "\ufeffa\n1\n2\n", "a,a\n1,2\n",
            "=cmd,b\n1,2\n", "a\n" + "\n".join(["1"] * 100000) + "\n", "a\n\x00\n",
            "a,b\n1,2,3\n", "series_id,judge,steady,index\ns,a,1,5\n", "a\n-0\n",
            "a\n1_000\n", "a\n0x10\n", "a\n 1 \n"]
    for k, t in enumerate(csvs):
        add("csv", f"c{k}.csv", t)
    # Extra-P text
    extrap = ["", "PARAMETER p\n", "PARAMETER p\nPOINTS 1 2 3\nREGION r\nMETRIC t\nDATA 1 2 3\nDATA 2 3 4\nDATA 3 4 5\n",
              "PARAMETER p\nPOINTS 1 2 3\nDATA 1\n", "POINTS 1 2\nDATA 1\nDATA 2\n",
              "PARAMETER p\nPOINTS a b\nDATA 1\nDATA 2\n", "PARAMETER p\nPOINTS 1 2\nDATA x\nDATA 2\n",
              "PARAMETER p\nPOINTS 1 2\nDATA nan\nDATA 2\n", "PARAMETER p\nPOINTS -1 -2\nDATA 1\nDATA 2\n",
              "PARAMETER p\nPOINTS 1 2\nDATA 1e400\nDATA 2\n", "GARBAGE\n", "PARAMETER\n",
              "PARAMETER p q\nPOINTS ( 1 2 ) ( 3 4 )\nDATA 1\nDATA 2\n", "PARAMETER p\nPOINTS 1\nDATA\n",
              "PARAMETER p\nPOINTS " + " ".join(map(str, range(1, 3000))) + "\n"]
    for k, t in enumerate(extrap):
        add("extrap", f"e{k}.txt", t)
    # TCPD
    good = {"name": "t", "n_obs": 3, "n_dim": 1, "time": {"index": [0, 1, 2]},
            "series": [{"label": "V1", "type": "float", "raw": [1.0, 2.0, 3.0]}]}
    tcpd = [good, {**good, "n_obs": 4}, {**good, "n_obs": "3"}, {**good, "n_obs": -1},
            {**good, "series": []}, {**good, "series": "x"}, {**good, "series": [5]},
            {**good, "series": [{"label": "V1", "raw": [1, None, 3]}]},
            {**good, "series": [{"label": "V1", "raw": [1, "a", 3]}]},
            {**good, "time": {"index": [0, 1, 2], "raw": 5}},
            {**good, "time": {"index": [0, 1, 2], "raw": ["a", "b"]}},
            {**good, "time": {"index": [0, 1, 2], "raw": ["2020-01-01", "2020-01-02", "2020-01-03"]}},
            {**good, "time": 7}, {**good, "n_dim": 2},
            {**good, "n_dim": 2, "series": [{"label": "a", "raw": [1, 2, 3]}, {"label": "b", "raw": [1, 2]}]},
            {**good, "n_dim": 2, "series": [{"label": "a", "raw": [1, 2, 3]}, {"label": "a", "raw": [1, 2, 3]}]},
            {"name": "t"}, {**good, "name": None}, {**good, "name": "x" * 300},
            {**good, "series": [{"label": 5, "raw": [1, 2, 3]}]}]
    for k, v in enumerate(tcpd):
        add("tcpd", f"t{k}.json", json.dumps(v))
    add("tcpd", "annotations.json", json.dumps({"t": {"1": [1], "2": "x"}}))
    # filesystem
    add("fs", "fifo.json", make=lambda p: os.mkfifo(p))
    add("fs", "dir.json", make=lambda p: p.mkdir())
    add("fs", "broken_link.json", make=lambda p: p.symlink_to(p.parent / "missing.json"))
    add("fs", "loop.json", make=lambda p: p.symlink_to(p))
    add("fs", "binary.json", raw=bytes(range(256)))
    add("fs", "latin1.csv", raw="a\n1\né\n".encode("latin-1"))
    add("fs", "utf16.json", raw="[[1,2,3]]".encode("utf-16"))
    add("fs", "empty.json", text="")
    add("fs", "noext", text="[[1,2,3]]")
    add("fs", "unknown.xyz", text="1,2,3")
    add("fs", "spaces in name.json", text="[[1,2,3]]")
    add("fs", "ünïcödé.json", text="[[1,2,3]]")
    add("fs", ".hidden.json", text="[[1,2,3]]")
    return cases


def check_loaded(path: Path):
    ds = segview.load(path)
    for s in ds:
        assert np.all(np.isfinite(s.values)), "non-finite values loaded"


def run_loaders(tmp: Path):
    rows = {}
    for area, path in loader_cases(tmp):
        rows.setdefault(area, []).append((path.name, attempt(lambda: check_loaded(path), 30)))
    # each area's folder as a whole: the good files load, the others are reported
    for area in list(rows):
        rows[area].append((f"{area}/ (folder)", attempt(lambda: segview.load(tmp / area), 60)))
    return rows


# ------------------------------------------------------------------------------ detect

def detect_inputs():
    rng = np.random.default_rng(0)
    step = np.r_[rng.normal(0, 1, 100), rng.normal(4, 1, 100)]
    base = {
        "empty": [], "one": [1.0], "two": [1.0, 2.0], "three": [1.0, 2.0, 3.0], "ten": list(range(10)),
        "const": np.ones(200), "zeros": np.zeros(200), "step": step, "noise": rng.normal(size=200),
        "int": np.round(step), "twovals": np.tile([0.0, 1.0], 100), "ramp": np.arange(200.0),
        "spike": np.r_[np.zeros(199), 1e6], "alternating": np.tile([1e6, -1e6], 100),
        "nan": np.r_[step[:-1], np.nan], "inf": np.r_[step[:-1], np.inf], "-inf": np.r_[-np.inf, step[1:]],
        "allnan": np.full(50, np.nan), "2d": np.ones((50, 2)), "3d": np.ones((5, 5, 2)),
        "strings": ["a", "b"], "mixed": [1, "a", 3], "none": [1.0, None, 2.0], "bools": [True, False] * 20,
        "object": [object()] * 3, "nested": [[1, 2], [3]], "complex": np.ones(20) * (1 + 1j),
        "long": rng.normal(size=5000),
    }
    for scale in (1e-320, 1e-300, 1e-200, 1e-160, 1e-100, 1e100, 1e160, 1e200, 1e300, 1e305, 1.7e308):
        base[f"step*{scale:g}"] = step * scale
    base["step+1e300"] = step + 1e300
    base["max"] = np.full(100, 1.7976931348623157e308)
    base["min_sub"] = np.full(100, 5e-324)
    base["sub_pattern"] = np.array([5e-324 * (i % 5) for i in range(300)])
    base["neg_huge"] = -np.abs(step) * 1e305
    base["huge_mixed"] = np.r_[step[:100] * 1e-300, step[100:] * 1e300]
    base["tiny_noise_on_big"] = 1e10 + rng.normal(size=200) * 1e-6
    base["quantised"] = np.round(rng.normal(size=200) * 2) / 2
    base["int64"] = np.arange(200, dtype=np.int64) * 10**12
    base["float32"] = step.astype(np.float32)
    base["readonly"] = np.array(step)
    base["readonly"].flags.writeable = False
    base["noncontig"] = np.r_[step, step][::2]
    base["list"] = step.tolist()
    base["tuple"] = tuple(step.tolist())
    return base


def check_result(values, res):
    n = len(values)
    cps = np.asarray(res.change_points)
    assert cps.ndim == 1 and np.all(np.diff(cps) > 0), "change points not sorted/unique"
    assert cps.size == 0 or (cps[0] > 0 and cps[-1] < n), "change point out of range"
    assert res.steady_start is None or 0 <= res.steady_start < n, "onset out of range"


def run_detect(quick: bool):
    rows = []
    methods = [m.name for m in segview.methods()]
    for (name, values), method in itertools.product(detect_inputs().items(), methods):
        if quick and method in ("cpssd", "autoparm") and name not in ("step", "const", "empty", "nan"):
            continue

        def go(values=values, method=method):
            res = segview.detect(values, method)
            check_result(values, res)
        rows.append((f"{method}:{name}", attempt(go, 120)))
    return rows


# ------------------------------------------------------------------------------ parameters

HOSTILE = [10**400, -(10**400), 2**63, -(2**63), float("nan"), float("inf"), -float("inf"), 1e308,
           -1e308, 5e-324, "abc", "", " ", "1e400", "nan", "inf", "0x10", [], {}, (1,), True, False,
           None, object(), b"1", 1 + 2j]


def run_params():
    rows = []
    for spec in segview.methods():
        for p in spec.params:
            for v in HOSTILE + [p.low, p.high, (p.low or 0) - 1, (p.high or 0) + 1, p.default]:
                def go(spec=spec, p=p, v=v):
                    got = spec.coerce({p.name: v})[p.name]
                    if p.kind in ("int", "float") and isinstance(got, (int, float)) \
                            and not isinstance(got, bool):
                        assert math.isfinite(got)
                        assert (p.low is None or got >= p.low) and (p.high is None or got <= p.high)
                rows.append((f"{spec.name}.{p.name}={str(v)[:12]}", attempt(go, 10)))
        for bad in ({"nope": 1}, {"": 1}, {None: 1}):
            rows.append((f"{spec.name} unknown {bad}", attempt(lambda spec=spec, bad=bad: spec.coerce(bad), 10)))
    return rows


# ------------------------------------------------------------------------------ CLI

def cli_case(argv):
    """Run the CLI in-process: (rc, stderr); a traceback or an rc outside 0/1/2 fails the case."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    if rc not in (0, 1, 2, None) or "Traceback" in err.getvalue():
        raise AssertionError(f"rc {rc}: {err.getvalue()[-200:]}")
    return rc, err.getvalue()


def run_cli(tmp: Path):
    folder = tmp / "cli"
    folder.mkdir()
    (folder / "s.json").write_text(json.dumps([[1.0] * 50 + [5.0] * 50]))
    (folder / "bad.json").write_text("[[1,")
    exists = tmp / "exists.csv"
    exists.write_text("x\n")
    s = str(folder / "s.json")
    flags = [[], ["--param", "penalty=1e400"], ["--param", "nope=1"], ["--param", "penalty"],
             ["--param", "=1"], ["--format", "json"], ["--format", "xml"], ["--jobs", "0"],
             ["--jobs", "-1"], ["--jobs", "x"], ["--jobs", "2"], ["--preset", "nope"],
             ["--preset", "faithful"], ["--help-params"], ["--out", str(exists)],
             ["--out", "/nonexistent/x.csv"], ["--out", str(folder)], ["--cache", "/proc/x/y"],
             ["--scheduler", "tcp://127.0.0.1:1"], ["--scheduler", "garbage"], ["--cp-index", "nope"]]
    methods = ["binseg", "kbkssd", "nope", "all", "", "BINSEG", "op,,pelt", "binseg,binseg"]
    rows = []
    for m, f in itertools.product(methods, flags):
        if f and f[0] == "--scheduler" and m not in ("binseg",):
            continue  # one connection attempt per scheduler flag is enough
        argv = ["detect", s, "-m", m, *f]
        rows.append((" ".join(argv[2:])[:60], attempt(lambda argv=argv: cli_case(argv), 90)))
    others = [["methods"], ["methods", "nope"], ["methods", "binseg"], ["detect"], ["detect", "/nope"],
              ["detect", str(folder)], ["evaluate"], ["evaluate", "--truth", "/nope.csv", s],
              ["evaluate", "--cp-truth", "/nope.json", s], ["aggregate", "/nope.csv", "--out", str(tmp / "o.csv")],
              ["aggregate", str(folder / "bad.json"), "--out", str(tmp / "o.csv")], ["session", "list", "--db", "/proc/x"],
              ["session", "progress", "nope", "--db", str(tmp / "n.sqlite")], ["session", "create", "x", "/nope",
                                                                               "--db", str(tmp / "n.sqlite")],
              ["watch", "/nope.json", "--once"], ["workload", "/nope.csv"], ["nonsense"], ["--version"],
              ["detect", s, "--param", "x" * 10000], ["sensitivity"], ["tune"]]
    for argv in others:
        rows.append((" ".join(argv)[:60], attempt(lambda argv=argv: cli_case(argv), 90)))
    return rows


# ------------------------------------------------------------------------------ databases

def run_databases(tmp: Path):
    from segview.core.annotation.session import AnnotationSession
    from segview.core.annotation.store import Store

    def good(path):
        with Store(path) as st:
            s = AnnotationSession.create(st, "s", [segview.Series(np.arange(50.0), id="a")])
            s.record(s.judge("j", create=True), "a", steady=True, onset=5)

    def damage(kind, path):
        if kind == "random":
            path.write_bytes(np.random.default_rng(1).bytes(8192))
            return
        if kind == "foreign":
            with sqlite3.connect(path) as c:
                c.execute("CREATE TABLE t (x)")
            return
        if kind == "empty-file":
            path.write_bytes(b"")
            return
        good(path)
        with sqlite3.connect(path) as c:
            if kind == "version-text":
                c.execute("UPDATE segview_meta SET value='abc'")
            elif kind == "version-future":
                c.execute("UPDATE segview_meta SET value='999'")
            elif kind == "bad-event-json":
                c.execute("UPDATE events SET change_points='[1,'")
            elif kind == "missing-table":
                c.execute("DROP TABLE judges")
            elif kind == "old-v1":
                c.execute("DROP TABLE assignments")
                c.execute("DROP TABLE item_dimensions")
                c.execute("UPDATE segview_meta SET value='1'")
        if kind == "truncated":
            raw = path.read_bytes()
            path.write_bytes(raw[: len(raw) // 2])
        if kind == "pages":
            raw = bytearray(path.read_bytes())
            raw[4096:] = np.random.default_rng(2).bytes(len(raw) - 4096)
            path.write_bytes(bytes(raw))

    commands = [["session", "list"], ["session", "progress", "s"], ["session", "aggregate", "s", "--out", "OUT"],
                ["session", "export-judgments", "s", "--out", "OUT"]]
    rows = []
    kinds = ["random", "foreign", "empty-file", "version-text", "version-future", "bad-event-json",
             "missing-table", "old-v1", "truncated", "pages"]
    for k, (kind, cmd) in enumerate(itertools.product(kinds, commands)):
        path = tmp / f"db{k}.sqlite"
        damage(kind, path)
        argv = [a.replace("OUT", str(tmp / f"out{k}.csv")) for a in cmd] + ["--db", str(path)]
        rows.append((f"{kind}: {' '.join(cmd[:2])}", attempt(lambda argv=argv: cli_case(argv), 60)))
    return rows


# ------------------------------------------------------------------------------ naming the database

def run_database_naming(tmp: Path):
    """Issue 30, items 1, 2, 3, 9, 11, 12 (store side): every way of naming the database means the
    same one, no message shows its password, a replaced file is refused, bad text is refused the
    same way on both backends, a stale window is refused. A case fails on a broken promise."""
    from segview.core.annotation.location import resolve_db
    from segview.core.annotation.session import AnnotationSession
    from segview.core.annotation.store import Store
    from segview.core.errors import DatabaseFileGoneError, InputError, StaleLabelError
    from segview.core.secrets import mask_secrets

    base = tmp / "naming"
    base.mkdir()
    counter = itertools.count()
    pw = "Pw9secret"
    passwords = [pw, f"p@ss@{pw}", f"{pw}@", f"@{pw}", f"a:{pw}", f"{pw}/x", f"{pw}%40"]
    urls = [f"{scheme}://judge:{p}@127.0.0.1:1/seg" for scheme in
            ("postgresql", "postgres", "postgresql+psycopg") for p in passwords]

    def fresh() -> Path:
        d = base / f"c{next(counter)}"
        d.mkdir()
        return d

    @contextlib.contextmanager
    def inside(folder: Path, env: str | None = None):
        old_cwd, old_env = os.getcwd(), os.environ.get("SEGVIEW_DB")
        os.chdir(folder)
        if env is None:
            os.environ.pop("SEGVIEW_DB", None)
        else:
            os.environ["SEGVIEW_DB"] = env
        try:
            yield
        finally:
            os.chdir(old_cwd)
            if old_env is None:
                os.environ.pop("SEGVIEW_DB", None)
            else:
                os.environ["SEGVIEW_DB"] = old_env

    def cli(argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as exc:
                rc = exc.code
        return rc, out.getvalue() + err.getvalue()

    def no_secret(text: str) -> None:
        for p in passwords:
            if p in text or pw in text:
                raise AssertionError(f"password shown: {text[-200:]}")
        if "Traceback" in text:
            raise AssertionError(text[-200:])

    rows = []
    # item 1: $SEGVIEW_DB with a URL is that server (no local file, no password, an error)
    commands = [["session", "list"], ["session", "progress", "x"],
                ["session", "export-judgments", "x", "--out", "o.csv"],
                ["session", "aggregate", "x", "--out", "o.csv"]]
    for url, cmd in itertools.product(urls[:: len(passwords) // 2] + urls[1:2], commands):
        def go(url=url, cmd=cmd):
            d = fresh()
            with inside(d, url):
                rc, text = cli(cmd)
            no_secret(text)
            if rc != 2 or list(d.iterdir()):
                raise AssertionError(f"rc {rc}, files {list(d.iterdir())}")
        rows.append((f"$SEGVIEW_DB={mask_secrets(url)[:40]} {' '.join(cmd[:2])}", attempt(go, 30)))
    # item 3: argparse's own errors, -vv and odd passwords never show the password
    forms = [lambda u: ["session", "list", u], lambda u: ["session", "list", "--db-uri", u],
             lambda u: ["session", "list", f"--nope={u}"], lambda u: ["session", "create", "--protocol", u],
             lambda u: [u], lambda u: ["-vv", "session", "list", "--db", u],
             lambda u: ["session", "list", "--db-url", u], lambda u: ["annotate", "--protocol", u]]
    for url, form in itertools.product(urls, forms):
        def go(url=url, form=form):
            d = fresh()
            with inside(d):
                rc, text = cli(form(url))
            no_secret(text)
            if rc == 0:
                raise AssertionError("accepted")
        rows.append((f"argv {' '.join(form('URL'))[:30]} {mask_secrets(url)[:30]}", attempt(go, 30)))
    # item 9: file names are literal, by flag, by $SEGVIEW_DB and by Store(str)
    names = ["q?x.sqlite", "a%20b.sqlite", "p%3Fq.sqlite", "h#1.sqlite", "x;y.sqlite", "sp ace.sqlite",
             "ünï.sqlite", "%2e%2e.sqlite", "t\tab.sqlite", "*.sqlite", "[a].sqlite", "q?mode=ro",
             "file:x.sqlite", "x.sqlite?cache=shared", "http%3A%2F%2Fx"]
    for name, how in itertools.product(names, ("--db", "$SEGVIEW_DB", "Store")):
        def go(name=name, how=how):
            d = fresh()
            with inside(d, name if how == "$SEGVIEW_DB" else None):
                if how == "Store":
                    Store(name).close()
                else:
                    rc, text = cli(["session", "list", *(["--db", name] if how == "--db" else [])])
                    if rc != 0:
                        raise AssertionError(text[-200:])
            got = sorted(p.name for p in d.iterdir())
            if got[:1] != [name] or any(not g.startswith(name) for g in got):
                raise AssertionError(f"{name!r} -> {got}")
        rows.append((f"file {name!r} via {how}", attempt(go, 30)))
    for text_, expect in [("sqlite:///q?x.sqlite", None), ("sqlite:///a%20b.sqlite", "a b.sqlite"),
                          ("postgresql:/judge:Pw9secret@h/db", None), ("postgres:u@h/db", None),
                          ("sqlite:rel.db", None), ("sqlite://", ""), ("postgresql://", None)]:
        def go(text_=text_, expect=expect):
            d = fresh()
            with inside(d):
                rc, out = cli(["session", "list", "--db", text_])
            no_secret(out)
            got = sorted(p.name for p in d.iterdir())
            if expect is None and (rc != 2 or got):
                raise AssertionError(f"rc {rc}, files {got}")
            if expect is not None and (rc != 0 or got[: 1 if expect else 0] != ([expect] if expect else [])):
                raise AssertionError(f"rc {rc}, files {got}: {out[-200:]}")
        rows.append((f"--db {text_[:30]}", attempt(go, 30)))
    def make_pw_url(p):  # the host must be what follows the LAST "@": True = misparsed
        from sqlalchemy.engine import make_url
        u = make_url(resolve_db(f"postgresql://judge:{p}@db.example:5432/seg").url)
        return (u.host, u.password) != ("db.example", p) and "/" not in p and "%" not in p

    for p in passwords + ["", "x y", "ä€", "'quoted'", "a&b;c", "it's@\"q\""]:
        def go(p=p):
            for url in (f"postgresql://judge:{p}@h:5/db", f"err 'postgresql+psycopg://judge:{p}@h/db': x"):
                m = mask_secrets(url)
                if p and p in m and " " not in p:
                    raise AssertionError(m)
            if p and " " not in p and make_pw_url(p):
                raise AssertionError("host misparsed")
        rows.append((f"mask password {p!r}", attempt(go, 10)))

    # item 2: the SQLite file deleted, moved or replaced while open: every write refused
    def opened(d: Path):
        store = Store(d / "a.sqlite")
        s = AnnotationSession.create(store, "s", [segview.Series(np.arange(20.0) + k, id=f"a{k}")
                                                  for k in range(3)])
        j = s.judge("j", create=True)
        s.record(j, "a0", steady=True, onset=3)
        return store, s, j

    def spoil(kind: str, d: Path) -> None:
        f = d / "a.sqlite"
        if kind == "deleted":
            f.unlink()
        elif kind == "moved":
            f.rename(d / "b.sqlite")
        else:
            other = Store(d / "c.sqlite")
            other.close()
            os.replace(d / "c.sqlite", f)

    actions = {"record": lambda s, j: s.record(j, "a1", steady=False),
               "clear": lambda s, j: s.clear(j, "a0"), "undo": lambda s, j: s.undo(j),
               "visit": lambda s, j: s.visit(j, "a2"), "new judge": lambda s, j: s.judge("k", create=True),
               "create": lambda s, j: AnnotationSession.create(s.store, "t", [segview.Series(np.arange(9.0), id="z")])}
    for kind, (name, act) in itertools.product(("deleted", "moved", "replaced"), actions.items()):
        def go(kind=kind, act=act):
            d = fresh()
            store, s, j = opened(d)
            spoil(kind, d)
            before = sorted(p.name for p in d.iterdir())
            try:
                act(s, j)
            except DatabaseFileGoneError as err:
                if str(d / "a.sqlite") not in str(err) or "NOT saved" not in str(err):
                    raise AssertionError(str(err)) from None
                after = sorted(p.name for p in d.iterdir() if ".rescued-" not in p.name)
                if after != before:
                    raise AssertionError(f"files changed: {before} -> {after}") from None
                if not err.rescued or not Path(err.rescued).is_file():
                    raise AssertionError("the rescued copy it names is missing") from None
                raise
            finally:
                store.close()
            raise AssertionError(f"{kind} file: write accepted")
        rows.append((f"file {kind}, then {name}", attempt(go, 30)))

    # item 12 (store side): NUL / over-long text refused alike on SQLite and PostgreSQL, nothing written
    backends = ["sqlite"] + (["postgresql"] if os.environ.get("SEGVIEW_TEST_PG_URL") else [])
    bad = {"NUL in series id": dict(ids=["ok", "a\x00b"]), "series id 501": dict(ids=["x" * 501]),
           "NUL in session name": dict(name="s\x00"), "session name 201": dict(name="n" * 201),
           "NUL in judge name": dict(judge="j\x00"), "judge name 201": dict(judge="j" * 201),
           "NUL in a note": dict(note="a\x00"), "NUL in a source": dict(source="f\x00.csv"),
           "NUL in a rename": dict(rename="r\x00"), "rename 201": dict(rename="r" * 201)}
    for backend, (what, case) in itertools.product(backends, bad.items()):
        def go(backend=backend, case=case):
            import uuid
            url = fresh() / "a.sqlite" if backend == "sqlite" else os.environ["SEGVIEW_TEST_PG_URL"]
            with Store(url) as store:
                def counts():
                    from sqlalchemy import func, select
                    from segview.core.annotation import store as st
                    with store.read() as conn:
                        return [conn.execute(select(func.count()).select_from(t)).scalar()
                                for t in (st.sessions, st.items, st.judges, st.events)]
                ok_name = f"ok-{uuid.uuid4().hex[:8]}"
                series = [segview.Series(np.arange(9.0) + k, id=i,
                                         metadata={"source": case.get("source", "")})
                          for k, i in enumerate(case.get("ids", ["a"]))]
                before = counts()
                try:
                    if "ids" in case or "name" in case or "source" in case:
                        AnnotationSession.create(store, case.get("name", ok_name), series)
                    else:
                        s = AnnotationSession.create(store, ok_name, series)
                        before = counts()
                        if "judge" in case:
                            s.judge(case["judge"], create=True)
                        elif "note" in case:
                            s.record(s.judge("j", create=True), "a", steady=False, note=case["note"])
                        else:
                            store.rename_session(ok_name, case["rename"])
                except InputError:
                    if "note" in case:
                        before[2] += 1  # the judge was added on purpose
                    if counts() != before:
                        raise AssertionError("written before refusing") from None
                    raise
            raise AssertionError("accepted")
        rows.append((f"{backend}: {what}", attempt(go, 30)))

    # item 11: two windows of one judge (the session API the window uses)
    def stale_cases():
        d = fresh()
        store = Store(d / "a.sqlite")
        s = AnnotationSession.create(store, "s", [segview.Series(np.arange(50.0) + k, id=f"a{k}")
                                                  for k in range(3)])
        return store, s, s.judge("j", create=True)

    def stale_record():
        store, s, j = stale_cases()
        s.record(j, "a0", steady=True, onset=5, expect=None)  # window A
        try:
            s.record(j, "a0", steady=True, onset=9, expect=None)  # window B, stale view
        except StaleLabelError as err:
            if err.current is None or err.current.onset != 5 or s.label(j, "a0").onset != 5:
                raise AssertionError("newer label lost or not reported") from None
            raise
        finally:
            store.close()
        raise AssertionError("stale write accepted")

    def stale_clear():
        store, s, j = stale_cases()
        e1 = s.record(j, "a0", steady=True, onset=5, expect=None)
        s.record(j, "a0", steady=False, expect=e1)
        try:
            s.clear(j, "a0", expect=e1)
        finally:
            store.close()
        raise AssertionError("stale clear accepted")

    def own_undo():
        store, s, j = stale_cases()
        mine_a = {s.record(j, "a0", steady=True, onset=5, expect=None)}
        s.record(j, "a1", steady=True, onset=7, expect=None)  # window B's, the latest
        shown = {"a0": next(iter(mine_a))}
        if s.undo(j, mine=mine_a, shown=shown) != "a0" or s.label(j, "a1").onset != 7:
            raise AssertionError("undid another window's label")
        if s.undo(j, mine=mine_a, shown={}) is not None or s.label(j, "a1") is None:
            raise AssertionError("undid another window's label")
        store.close()

    def overridden_undo():
        store, s, j = stale_cases()
        e1 = s.record(j, "a0", steady=True, onset=5, expect=None)
        s.record(j, "a0", steady=True, onset=8, expect=e1)  # window B moved it
        if s.undo(j, mine={e1}, shown={"a0": e1}) is not None or s.label(j, "a0").onset != 8:
            raise AssertionError("undo reverted under another window's label")
        store.close()

    for name, fn in [("stale record refused", stale_record), ("stale clear refused", stale_clear),
                     ("undo only this window's", own_undo),
                     ("undo skips an overridden action", overridden_undo)]:
        rows.append((name, attempt(fn, 30)))
    return rows


# ------------------------------------------------------------------------------ resources

@contextlib.contextmanager
def _patched(obj, name, value):
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)


def _expect_error(fn, *needles):
    """``fn`` must raise a segview error whose text holds every needle."""
    try:
        fn()
    except RecoverableError as err:
        missing = [n for n in needles if n not in str(err)]
        assert not missing, f"{missing} not in {err}"
        return
    raise AssertionError("accepted silently")


def _no_memory(*a, **k):
    raise MemoryError()


_UNDER_LIMIT = """
import resource, sys
from segview.cli.main import main
import segview.cli.detect, segview.core.io, numpy
with open("/proc/self/status") as fh:
    vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (vm + 60 * 2**20, vm + 60 * 2**20))
sys.exit(main(["detect", "-m", "zero", sys.argv[1]]))
"""


def run_resources(tmp: Path, quick: bool = False):
    """Issue 30, items 10 and 12 (loaders): many small series, memory, cost warnings, encodings,
    repeated JSON keys, TCPD time.index, Ctrl-C at start-up."""
    import subprocess
    import time

    from segview.cli import detect as detect_cli
    from segview.cli import main as cli_main
    from segview.core import registry
    from segview.core.context import RunContext
    from segview.core.errors import Cancelled
    from segview.core.evaluation.batch import MethodSpec, run_batch
    from segview.core.evaluation.tables import read_cp_truth
    from segview.core.io import jmh_json
    from segview.core.io.tcpd_json import read_annotations
    from segview.core.limits import cost_warning
    from segview.core.registry import DetectorSpec

    folder = tmp / "resources"
    folder.mkdir()
    rows = []
    n = 200_000 if quick else 1_000_000
    forks = folder / "forks.json"
    forks.write_text(json.dumps([[1 + k % 7, 2, 3 + k % 3] for k in range(n)], separators=(",", ":")))

    def many_forks():
        seen = []
        ctx = RunContext(min_interval=0.0)
        ctx.on_progress = lambda f, m: seen.append((f, m))
        t = time.process_time()
        ds = segview.load(forks, ctx=ctx)
        cpu = time.process_time() - t
        assert len(ds) == n and ds[n - 1].values.tolist() == [float(1 + (n - 1) % 7), 2.0,
                                                                float(3 + (n - 1) % 3)]
        assert any(0 < f < 1 and "fork" in m for f, m in seen), "no progress within the file"
        assert cpu < 30 * n / 1e6 + 5, f"{cpu:.1f} s of CPU"

    def cancel_midway():
        ctx = RunContext(min_interval=0.0)
        ctx.on_progress = lambda f, m: ctx.cancel() if 0.2 < f < 1 else None
        try:
            segview.load(forks, ctx=ctx)
        except Cancelled:
            return
        raise AssertionError("not cancelled within the file")

    rows.append((f"{n:,} three-point forks: load, progress within the file", attempt(many_forks, 300)))
    rows.append(("cancel in the middle of one file", attempt(cancel_midway, 300)))

    text = "a,b\n1.5,10\n2.5,20\n"
    for enc, bom in (("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-32", b"")):
        path = folder / f"{enc}.csv"
        path.write_bytes(bom + text.encode(enc))

        def utf(path=path):
            ds = segview.load(path)
            assert [s.values.tolist() for s in ds] == [[1.5, 2.5], [10.0, 20.0]]
        rows.append((f"CSV in {enc} with BOM", attempt(utf)))

    dups = {"tcpd n_obs twice": ('{"name": "t", "n_obs": 2, "n_obs": 3, "series": []}', "n_obs"),
            "JMH result primaryMetric twice": ('[{"benchmark": "b", "primaryMetric": {}, '
                                               '"primaryMetric": {"rawData": [[1]]}}]', "primaryMetric"),
            "any JSON object with a repeated key": ('{"a": 1, "a": 2}', "'a'")}
    for name, (body, key) in dups.items():
        path = folder / f"dup{len(rows)}.json"
        path.write_text(body)
        rows.append((f"duplicate key: {name}", attempt(
            lambda path=path, key=key: _expect_error(lambda: segview.load(path), path.name, key))))
    ann = folder / "annotations.json"
    ann.write_text('{"t": {"j": [1], "j": [2]}}')
    rows.append(("duplicate key: annotations.json annotator", attempt(
        lambda: _expect_error(lambda: read_annotations(ann), "annotations.json", "'j'"))))
    truth = folder / "truth.json"
    truth.write_text('{"s": {"a": [1]}, "s": {}}')
    rows.append(("duplicate key: evaluate --cp-truth file", attempt(
        lambda: _expect_error(lambda: read_cp_truth(truth), "truth.json", "'s'"))))

    base = {"name": "t", "n_obs": 3, "series": [{"label": "V1", "raw": [1.0, 2.0, 3.0]}]}
    for name, index, needle in (("shorter than n_obs", [0, 1], "2 entries but n_obs is 3"),
                                ("longer than n_obs", [0, 1, 2, 3], "4 entries but n_obs is 3"),
                                ("not a list", 5, "n_obs is 3")):
        path = folder / f"index_{name.replace(' ', '_')}.json"
        path.write_text(json.dumps({**base, "time": {"index": index}}))
        rows.append((f"TCPD time.index {name}", attempt(
            lambda path=path, needle=needle: _expect_error(lambda: segview.load(path), path.name,
                                                           needle))))

    def ctrl_c_at_startup():
        err = io.StringIO()

        def interrupted(*a, **k):
            raise KeyboardInterrupt
        with _patched(cli_main, "import_module", interrupted), contextlib.redirect_stderr(err):
            rc = cli_main.main(["detect", "-m", "binseg", str(forks)])
        assert rc == 130 and err.getvalue() == "segview: interrupted\n", (rc, err.getvalue())
    rows.append(("Ctrl-C while the CLI imports its command", attempt(ctrl_c_at_startup)))

    def detector_out_of_memory():
        spec = DetectorSpec(name="hungry", label="H", version="1", produces="change_points",
                            params=(), run=lambda v, p, c: _no_memory())
        row = run_batch([segview.Series(np.arange(30.0), id="s")],
                        [MethodSpec(spec, spec.defaults())], workers=1)[0]
        assert "out of memory while running hungry" in row["error"], row["error"]
        assert "bug in segview" not in row["error"]
    rows.append(("a detector runs out of memory", attempt(detector_out_of_memory)))

    small = folder / "small.json"
    small.write_text(json.dumps([[1.0] * 20 + [5.0] * 20]))

    def loader_out_of_memory():
        with _patched(jmh_json, "read_json", _no_memory):
            _expect_error(lambda: segview.load(small), "small.json", "out of memory while reading")
    rows.append(("a loader runs out of memory", attempt(loader_out_of_memory)))

    def cli_out_of_memory():
        err = io.StringIO()
        with _patched(detect_cli, "run_batch", _no_memory), contextlib.redirect_stderr(err):
            rc = main(["detect", "-m", "binseg", str(small)])
        assert rc == 2 and "out of memory while running 'segview detect'" in err.getvalue()
        assert "Traceback" not in err.getvalue()
    rows.append(("detect runs out of memory (results)", attempt(cli_out_of_memory)))

    def csv_builds_no_json():
        def forbidden(row):
            raise AssertionError("JSON entry built for CSV output")
        with _patched(detect_cli, "json_entry", forbidden), contextlib.redirect_stdout(io.StringIO()):
            assert main(["detect", "-m", "binseg", str(small)]) == 0
    rows.append(("detect --format csv builds no JSON entries", attempt(csv_builds_no_json)))

    def under_limit():
        proc = subprocess.run([sys.executable, "-c", _UNDER_LIMIT, str(forks)], capture_output=True,
                              text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT),
                                                           "OPENBLAS_NUM_THREADS": "1"})
        assert "Traceback" not in proc.stderr and "bug in segview" not in proc.stderr, proc.stderr[-300:]
        assert proc.returncode == 2 and "out of memory while" in proc.stderr, proc.stderr[-300:]
    rows.append(("detect in a subprocess under RLIMIT_AS (imports + 60 MB)", attempt(under_limit, 600)))

    for spec in registry.all_specs():
        def declared(spec=spec):
            assert callable(spec.cost), f"{spec.name} declares no cost"
            assert cost_warning(spec, 1000, spec.defaults()) is None
        rows.append((f"cost declared: {spec.name}", attempt(declared)))
    for name, length, params in (("nrss", 10**7, {}), ("autoparm", 300, {"mode": "ga", "bootstrap": 1000}),
                                 ("autoparm", 3000, {"bootstrap": 1000}), ("op", 10**6, {}),
                                 ("cpssd", 10**7, {})):
        def warns(name=name, length=length, params=params):
            spec = registry.get(name)
            assert cost_warning(spec, length, spec.coerce(params)), "no warning"
        rows.append((f"cost warning: {name} {params} on {length:,} samples", attempt(warns)))
    return rows


# ------------------------------------------------------------------------------ outputs (issue 30)

def _judged_session(db: Path, n: int = 5):
    from segview.core.annotation.session import AnnotationSession
    from segview.core.annotation.store import Store

    rng = np.random.default_rng(4)
    series = [segview.Series(rng.normal(size=40), id=f"e{k}") for k in range(n)]
    with Store(str(db)) as st:
        s = AnnotationSession.create(st, "s", series)
        j = s.judge("ann", create=True)
        for k, x in enumerate(series):
            s.record(j, x.id, steady=True, onset=3 + k)
    return series


def _manifest_cases():
    """(name, edit of the manifest dict or raw text, must the read fail?)"""
    def item(k, **kw):
        return lambda m: m["items"][k].update(**kw)

    def pop(*keys):
        def go(m):
            obj = m
            for key in keys[:-1]:
                obj = obj[key]
            obj.pop(keys[-1])
        return go
    return [
        ("items[].file absolute", item(0, file="/etc/passwd")),
        ("items[].file ../..", item(0, file="../../x.json")),
        ("items[].file sub/../..", item(0, file="a/../../x.json")),
        ("items[].file backslashes", item(0, file="..\\..\\x.json")),
        ("items[].file C:", item(0, file="C:\\x.json")),
        ("items[].file NUL", item(0, file="series\u0000.csv")),
        ("file_hashes /etc/shadow", lambda m: m["file_hashes"].update({"/etc/shadow": "0" * 64})),
        ("file_hashes ../", lambda m: m["file_hashes"].update({"../x": "0" * 64})),
        ("items missing", pop("items")), ("session missing", pop("session")),
        ("protocol missing", pop("session", "protocol")), ("file missing", pop("items", 0, "file")),
        ("series_id missing", pop("items", 0, "series_id")),
        ("content_hash missing", pop("items", 0, "content_hash")),
        ("items not a list", lambda m: m.update(items={"a": 1})),
        ("items a string", lambda m: m.update(items="all")),
        ("item a number", lambda m: m["items"].__setitem__(0, 5)),
        ("file a list", item(0, file=["series.csv"])), ("file null", item(0, file=None)),
        ("dims a string", item(0, dims="ab")), ("dims empty", item(0, dims=[])),
        ("duplicate series", lambda m: m["items"].append(m["items"][0])),
        ("session a list", lambda m: m.update(session=[1])),
        ("protocol unknown", lambda m: m["session"].update(protocol="x")),
        ("format unknown", lambda m: m.update(format="xml")),
        ("file_hashes a list", lambda m: m.update(file_hashes=[1])),
        ("hash a number", lambda m: m["file_hashes"].update({"series.csv": 5})),
        ("judges a dict", lambda m: m.update(judges={})),
        ("judge a string", lambda m: m["judges"].__setitem__(0, "ann")),
        ("judge seed a string", lambda m: m["judges"][0].update(seed="x")),
        ("assigned a string", lambda m: m["judges"][0].update(assigned="e0")),
        ("broken JSON", '{"manifest": "segview labeled dataset", "items": ['),
        ("JSON list", '["segview labeled dataset"]'),
        ("deep nesting", '{"manifest": "segview labeled dataset", "items": ' + "[" * 5000
         + "]" * 5000 + "}"),
        ("not UTF-8", b'{"manifest": "segview labeled dataset", "x": "\xff"}'),
    ]


def run_outputs(tmp: Path):
    """Issue 30, items 4-8 and the permission point of 12: crafted export manifests (library,
    ``detect`` and ``session import``), outputs on a full disk, SIGTERM, a lost Dask scheduler, a
    damaged ``--cache``, export permissions. A case is handled when it ends in a named error or a
    correct result and keeps the item's promise (nothing read outside the export folder, no cut
    file under its final name, the file named, nothing left behind)."""
    import builtins
    import errno
    import shutil
    import stat
    import subprocess
    import time

    from segview.core import atomic
    from segview.core import export as ex
    from segview.core.annotation.session import AnnotationSession
    from segview.core.annotation.store import Store

    root = tmp / "outputs"
    root.mkdir()
    db = root / "s.sqlite"
    series = _judged_session(db)
    with Store(str(db)) as st:
        template = ex.export_session(AnnotationSession.open(st, "s"), root / "template", "csv")
    rows = []

    # ---- item 4: crafted manifests, each through the library, detect and session import
    secret = root / "secret.csv"
    secret.write_text("series_id,index,value\nleak,0,1\n")
    for k, (name, edit) in enumerate(_manifest_cases()):
        parent = root / f"m{k}"
        folder = parent / "exp"
        shutil.copytree(template, folder)
        (parent / "loose.json").write_text(json.dumps([[1.0, 2.0, 3.0, 4.0]]))
        meta = folder / "metadata.json"
        if callable(edit):
            m = json.loads(meta.read_text())
            edit(m)
            meta.write_text(json.dumps(m))
        else:
            meta.write_bytes(edit if isinstance(edit, bytes) else edit.encode())

        def lib(folder=folder):
            try:
                ex.read_export(folder)
            except RecoverableError as err:
                assert "metadata.json" in str(err), f"the manifest is not named: {err}"
                raise
            raise AssertionError("a crafted manifest was read")

        def parent_load(parent=parent):
            ds = segview.load(parent)
            assert "loose" in [s.id for s in ds], "the good file beside the export did not load"
            assert "leak" not in [s.id for s in ds], "read outside the export folder"

        def importing(folder=folder, k=k):
            kdb = root / f"import{k}.sqlite"
            shutil.copy(db, kdb)
            rc, err = cli_case(["session", "import", "s", str(folder), "--db", str(kdb)])
            assert rc == 2 and "metadata.json" in err, f"rc {rc}: {err[-200:]}"

        def detecting(parent=parent):
            rc, err = cli_case(["detect", str(parent), "-m", "zero"])
            assert rc == 1 and "metadata.json" in err, f"rc {rc}: {err[-200:]}"

        # "deep nesting"/"not UTF-8"/... are not recognised as exports by the folder walk; then
        # the folder's files load as plain files, which is correct too
        rows.append((f"manifest {name}: read_export", attempt(lib, 30)))
        rows.append((f"manifest {name}: load(parent)", attempt(parent_load, 30)))
        rows.append((f"manifest {name}: session import", attempt(importing, 30)))
        rows.append((f"manifest {name}: detect PARENT", attempt(detecting, 60)))
    for kind in ("absolute link", "relative link"):
        folder = root / f"link-{kind[:3]}"
        shutil.copytree(template, folder)
        (folder / "series.csv").unlink()
        (folder / "series.csv").symlink_to(secret if kind == "absolute link"
                                          else os.path.relpath(secret, folder))
        rows.append((f"manifest series.csv {kind} out", attempt(
            lambda folder=folder: ex.read_export(folder) and None, 30)))
        if rows[-1][1] == "ok":
            rows[-1] = (rows[-1][0], "FAILED: read through a link out of the folder")

    # ---- item 5: every output writer on a full disk (ENOSPC after 20 characters)
    judgments = root / "j.csv"
    cli_case(["session", "export-judgments", "s", "--out", str(judgments), "--db", str(db)])
    data = root / "data.json"
    data.write_text(json.dumps([s.values.tolist() for s in series]))
    pred = root / "pred.csv"
    pred.write_text("series_id,method,steady_index,change_points,runtime_ms\n"
                    + "".join(f"s{k},KB,{10 * k},,1\n" for k in range(40)))
    truth = root / "truth.csv"
    truth.write_text("series_id,steady,reference_index,clustered\n"
                     + "".join(f"s{k},1,{10 * k + 3},0\n" for k in range(40)))
    writers = {
        "session export-judgments": ["session", "export-judgments", "s", "--out", "OUT", "--db", str(db)],
        "session aggregate": ["session", "aggregate", "s", "--out", "OUT", "--db", str(db)],
        "session export (folder)": ["session", "export", "s", "--out", "OUT", "--db", str(db)],
        "aggregate": ["aggregate", str(judgments), "--out", "OUT"],
        "detect -o csv": ["detect", str(data), "-m", "zero", "-o", "OUT"],
        "detect -o json": ["detect", str(data), "-m", "zero", "--format", "json", "-o", "OUT"],
        "evaluate -o": ["evaluate", "--truth", str(truth), str(pred), "-o", "OUT"],
    }

    class Full:
        def __init__(self, fh):
            self.fh, self.room = fh, 20

        def write(self, text):
            if len(text) > self.room:
                self.fh.write(text[:self.room])
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            self.room -= len(text)
            return self.fh.write(text)

        def __getattr__(self, name):
            return getattr(self.fh, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    for name, argv in writers.items():
        for old in (False, True):
            out = root / f"full-{len(rows)}.csv"
            if old:
                if "folder" in name:
                    continue
                out.write_text("old\n")

            def go(argv=argv, out=out, old=old):
                atomic.open = lambda *a, **kw: Full(builtins.open(*a, **kw))  # the disk fills up
                try:
                    rc, err = cli_case([a.replace("OUT", str(out)) for a in argv]
                                        + (["--force"] if old else []))
                finally:
                    del atomic.open
                assert rc == 2 and str(out) in err, f"rc {rc}, file not named: {err[-200:]}"
                if old:
                    assert out.read_text() == "old\n", "the old content was lost"
                else:
                    assert not out.exists(), "a cut file is left under the final name"
                assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
            rows.append((f"disk full: {name}{' (old file kept)' if old else ''}", attempt(go, 60)))

    # ---- item 12: an export folder follows the umask as its files do
    def perms():
        for mask in (0o022, 0o077, 0o002):
            before = os.umask(mask)
            try:
                with Store(str(db)) as st:
                    f = ex.export_session(AnnotationSession.open(st, "s"), root / f"perm{mask}", "json")
            finally:
                os.umask(before)
            assert stat.S_IMODE(f.stat().st_mode) == 0o777 & ~mask
            assert stat.S_IMODE((f / "metadata.json").stat().st_mode) == 0o666 & ~mask
    rows.append(("export folder permissions follow the umask", attempt(perms, 60)))

    # ---- item 6: SIGTERM (real subprocesses), and the sweep of a killed export's folder
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def until(cond, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if cond():
                return True
            time.sleep(0.05)
        return cond()

    def term_detect():
        d = root / "term"
        d.mkdir()
        rng = np.random.default_rng(0)
        for k in range(12):
            (d / f"s{k}.json").write_text(json.dumps([np.r_[rng.normal(0, 1, 1500),
                                                             rng.normal(3, 1, 1500)].tolist()]))
        out = root / "term.csv"
        p = subprocess.Popen([sys.executable, "-m", "segview", "detect", str(d), "-m",
                              "cpssd,autoparm", "--jobs", "2", "-o", str(out)], env=env,
                             stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        assert until(lambda: len(_kids(p.pid)) >= 2, 60), "workers never started"
        p.terminate()
        err = p.communicate(timeout=60)[1].decode()
        assert p.returncode == 143, f"rc {p.returncode}: {err[-200:]}"
        assert (root / "term.partial.csv").is_file() and not out.exists()
        assert "leaked semaphore" not in err and "Traceback" not in err, err[-300:]

    def term_export():
        big = root / "big.sqlite"
        rng = np.random.default_rng(1)
        with Store(str(big)) as st:
            AnnotationSession.create(st, "big", [segview.Series(rng.normal(size=200), id=f"b{k}")
                                                 for k in range(2000)])
        target = root / "bigexp"
        p = subprocess.Popen([sys.executable, "-m", "segview", "session", "export", "big", "--out",
                              str(target), "--format", "tcpd", "--db", str(big)], env=env,
                             stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        hidden = lambda: [q for q in root.iterdir() if q.name.startswith(".bigexp.partial-")]  # noqa: E731
        assert until(lambda: any((q / "datasets").is_dir() for q in hidden()), 60)
        p.terminate()
        err = p.communicate(timeout=60)[1].decode()
        assert p.returncode == 143 and "Traceback" not in err, f"rc {p.returncode}: {err[-200:]}"
        assert not hidden() and not target.exists(), "SIGTERM left the export's hidden folder"

    def sweep():
        stale = root / ".swept.partial-4194321-00ff"
        stale.mkdir()
        cli_case(["session", "export", "s", "--out", str(root / "swept"), "--db", str(db)])
        assert not stale.exists(), "the folder of a killed export was not swept"

    rows.append(("SIGTERM: detect -j 2 keeps OUT.partial.csv", attempt(term_detect, 120)))
    rows.append(("SIGTERM: session export leaves no hidden folder", attempt(term_export, 120)))
    rows.append(("a killed export's hidden folder is swept", attempt(sweep, 60)))

    # ---- item 7: the Dask scheduler lost mid-run
    def dask_lost():
        import dask
        import distributed

        from segview.core.evaluation import batch

        with dask.config.set({"distributed.comm.timeouts.connect": "3s"}):
            cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1,
                                               processes=False, dashboard_address=None)
            stopped = []

            def progress(done, total):
                if done and not stopped:
                    stopped.append(done)
                    cluster.sync(cluster.scheduler.close)
            try:
                batch.run_batch([segview.Series(np.r_[np.zeros(400), np.ones(400)] + k, id=str(k))
                                 for k in range(40)], ["cpssd"],
                                executor=cluster.scheduler_address, progress=progress)
            except batch.BatchIncomplete as err:
                assert err.rows and cluster.scheduler_address in str(err)
                raise
            finally:
                cluster.close()
            assert not stopped, "the scheduler was closed, yet every run came back"
    rows.append(("Dask scheduler lost mid-run", attempt(dask_lost, 120)))

    # ---- item 8: a damaged --cache
    def damaged(kind):
        cache = root / f"cache-{kind}"
        cache.mkdir()
        path = cache / "results.sqlite"
        if kind in ("pages", "truncated", "entries", "header"):
            cli_case(["detect", str(data), "-m", "zero,binseg", "--cache", str(cache)])
            raw = bytearray(path.read_bytes())
            if kind == "pages":
                raw[4096:] = np.random.default_rng(2).bytes(len(raw) - 4096)
            elif kind == "truncated":
                raw = raw[: len(raw) // 2]
            elif kind == "header":
                raw[:16] = b"0123456789abcdef"
            path.write_bytes(bytes(raw))
            if kind == "entries":
                with sqlite3.connect(path) as c:
                    c.execute("UPDATE results SET value = '[1,'")
                c.close()
        elif kind == "random":
            path.write_bytes(np.random.default_rng(1).bytes(8192))
        elif kind == "empty":
            path.write_bytes(b"")
        elif kind == "folder":
            path.mkdir()
        out = root / f"cached-{kind}.csv"
        rc, err = cli_case(["detect", str(data), "-m", "zero,binseg", "--cache", str(cache),
                             "-o", str(out)])
        assert rc == 0, f"rc {rc}: {err[-200:]}"
        cols = lambda p: [ln.split(",")[:4] for ln in p.read_text().splitlines()]  # noqa: E731
        assert cols(out) == cols(root / "ref-cache.csv"), "results differ from an uncached run"
    cli_case(["detect", str(data), "-m", "zero,binseg", "-o", str(root / "ref-cache.csv")])
    for kind in ("random", "empty", "pages", "truncated", "header", "entries", "folder"):
        rows.append((f"damaged --cache: {kind}", attempt(lambda kind=kind: damaged(kind), 60)))
    return rows


def _kids(pid: int) -> list[int]:
    """The worker processes below ``pid`` (Linux /proc), fork servers' children included."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                if ppid == parent:
                    found.append(int(entry.name))
                    todo.append(int(entry.name))
    parents = set()
    for p in found:
        try:
            parents.add(int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1]))
        except (OSError, ValueError, IndexError):
            pass
    # workers: processes that started none (not a fork server), not the resource tracker
    return [p for p in found if p not in parents and b"resource_tracker" not in _cmdline(p)]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def main_() -> int:
    quick = "--quick" in sys.argv
    os.environ.setdefault("SEGVIEW_CACHE_DIR", tempfile.mkdtemp())
    results = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for area, rows in run_loaders(tmp).items():
            results[f"loaders: {area}"] = rows
        results["segview.detect (inputs x methods)"] = run_detect(quick)
        results["parameters through the API"] = run_params()
        results["parameters and flags through the CLI"] = run_cli(tmp)
        results["damaged / foreign / old databases x 4 commands"] = run_databases(tmp)
        results["naming the database, passwords, replaced files, text limits, stale windows"] = run_database_naming(tmp)
        results["resources, encodings, JSON keys, start-up (issue 30)"] = run_resources(tmp, quick)
        results["outputs: manifests, full disk, SIGTERM, Dask, --cache (issue 30)"] = run_outputs(tmp)
    print("| area | tried | handled | failed |\n| --- | --- | --- | --- |")
    failures = []
    for area, rows in results.items():
        bad = [(n, r) for n, r in rows if r.startswith("FAILED")]
        failures += [(area, n, r) for n, r in bad]
        print(f"| {area} | {len(rows)} | {len(rows) - len(bad)} | {len(bad)} |")
    for area, n, r in failures:
        print(f"- {area} / {n}: {r}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main_())
