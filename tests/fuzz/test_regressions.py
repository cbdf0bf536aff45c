"""Regression tests for the hostile inputs of issue 17, one per reported item (named after it).

Each case must end in a clear error naming the file/series and place, or in a correct result; never
a traceback, a hang, a crash or a silent wrong answer.
"""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import segview
from segview.cli.main import main
from segview.core.errors import DataFormatError, InputError, ParameterError
from segview.core.secrets import mask_secrets

REPO = Path(__file__).resolve().parents[2]
STEP = [1.0] * 60 + [5.0] * 60

# file name -> content of a file no reader should accept; the message must name the file and what
HOSTILE_FILES = {
    "only_commas.csv": (",,,\n", "no values"),
    "huge_cell.csv": ("a\n" + "1" * 200_000 + "\n", "line 2"),
    "huge_int.json": ("[[" + "1" * 400 + ", 2, 3]]", "400 digits"),
    "deep.json": ("[" * 2000 + "]" * 2000, "nested too deeply"),
    "metric_not_object.json": (json.dumps([{"benchmark": "b", "primaryMetric": 5}]),
                               "primaryMetric"),
    "tcpd_time_number.json": (json.dumps({"name": "t", "n_obs": 3, "n_dim": 1,
                                          "time": {"index": [0, 1, 2], "raw": 5},
                                          "series": [{"label": "V1", "type": "float",
                                                      "raw": [1, 2, 3]}]}), "time.raw"),
}


def _write_hostile(folder: Path) -> None:
    for name, (text, _) in HOSTILE_FILES.items():
        (folder / name).write_text(text)
    (folder / "good.json").write_text(json.dumps([STEP]))


# -- item 2: one finite series kills a whole run --------------------------------------------------

def test_one_huge_series_does_not_kill_the_run(tmp_path, capsys):
    (tmp_path / "huge.json").write_text(json.dumps([[v * 1e305 for v in STEP]]))
    (tmp_path / "good.json").write_text(json.dumps([STEP]))
    rc = main(["detect", str(tmp_path), "--method", "kbkssd,binseg"])
    cap = capsys.readouterr()
    assert rc == 1  # some series failed, the others are written
    rows = list(csv.DictReader(io.StringIO(cap.out)))
    assert {(r["series_id"], r["method"]) for r in rows} == {("good", "kbkssd"), ("good", "binseg")}
    assert "huge" in cap.err and "overflow" in cap.err
    assert "Traceback" not in cap.err


@pytest.mark.parametrize("scale", [1e305, 3.5e307, 1e-300, 5e-324])
def test_extreme_magnitudes_are_refused_by_name(scale):
    with pytest.raises(InputError, match="power of ten"):
        segview.detect(np.asarray(STEP) * scale, "kbkssd")


def test_a_detector_bug_is_reported_per_item_not_raised():
    from segview.core.evaluation.batch import MethodSpec, _run_one
    from segview.core.model import Series
    from tests.fakes import registered
    from segview.core.registry import DetectorSpec

    def boom(values, params, ctx):
        raise ValueError("attempt to get argmin of an empty sequence")

    spec = DetectorSpec(name="fake_boom", label="Boom", version="1", produces="onset", params=(),
                        run=boom)
    with registered(spec):
        row = _run_one(MethodSpec(spec, spec.defaults()), Series(STEP, id="s"), True)
    assert "internal error in fake_boom" in row["error"] and "ValueError" in row["error"]


# -- item 3: one bad file breaks a whole folder ---------------------------------------------------

@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_hostile_file_alone_gives_a_named_error(tmp_path, name):
    text, expect = HOSTILE_FILES[name]
    (tmp_path / name).write_text(text)
    with pytest.raises(DataFormatError) as info:
        segview.load(tmp_path / name)
    assert name in str(info.value) and expect in str(info.value)


def test_hostile_files_in_a_folder_do_not_stop_the_others(tmp_path, capsys):
    _write_hostile(tmp_path)
    ds = segview.load(tmp_path)
    assert [s.id for s in ds] == ["good"]
    assert sorted(Path(p.source).name for p in ds.problems) == sorted(HOSTILE_FILES)
    rc = main(["detect", str(tmp_path), "--method", "binseg"])
    cap = capsys.readouterr()
    assert rc == 1 and "good,binseg" in cap.out
    assert all(name in cap.err for name in HOSTILE_FILES) and "Traceback" not in cap.err


# -- item 4: a FIFO named .json hangs everything --------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_without_opening_it(tmp_path):
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "good.json").write_text(json.dumps([STEP]))
    code = ("import segview, sys\n"
            f"ds = segview.load({str(tmp_path)!r})\n"
            "print(len(ds), ds.problems[0])\n"
            "try:\n"
            f"    segview.load({str(tmp_path / 'pipe.json')!r})\n"
            "except Exception as e:\n"
            "    print(type(e).__name__, e)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env=env).stdout  # a hang fails with TimeoutExpired, not forever
    assert out.startswith("1 ") and "pipe.json: is not a regular file" in out
    assert "DataFormatError" in out


def test_size_limit_is_clear(tmp_path, monkeypatch):
    monkeypatch.setenv("SEGVIEW_MAX_FILE_MB", "0.001")
    (tmp_path / "big.json").write_text(json.dumps([STEP * 20]))
    with pytest.raises(DataFormatError, match="SEGVIEW_MAX_FILE_MB"):
        segview.load(tmp_path / "big.json")


# -- item 6: nrss on x <= 0 wrote LAPACK lines and a wrong change point ---------------------------

def test_nrss_refuses_non_positive_x(tmp_path, capfd):
    (tmp_path / "s.csv").write_text("x,v\n" + "".join(f"{x},{1 if x < 3 else 5}\n"
                                                        for x in range(-2, 8)))
    rc = main(["detect", str(tmp_path / "s.csv"), "--method", "nrss"])
    cap = capfd.readouterr()
    assert rc == 1
    assert "x must not be negative" in cap.err and "DLASCL" not in cap.out + cap.err


# -- parameters through the API and the CLI -------------------------------------------------------

@pytest.mark.parametrize("value", [10**400, -(10**400), "1e400", float("nan"), [], object()])
def test_parameters_huge_or_wrong_type_give_parameter_errors(value):
    for spec in segview.methods():
        for p in spec.params:
            if p.kind in ("int", "float"):
                with pytest.raises(ParameterError) as info:
                    spec.coerce({p.name: value})
                assert len(str(info.value)) < 300  # a 400-digit number is not echoed whole


@pytest.mark.parametrize("flag", [["--jobs", "0"], ["--jobs", "-3"], ["--jobs", "x"]])
def test_cli_bad_counts_are_usage_errors(flag, capsys):
    with pytest.raises(SystemExit) as info:
        main(["detect", str(REPO / "resources/sample/jmh/s0002.json"), "-m", "binseg", *flag])
    assert info.value.code == 2


@pytest.mark.parametrize("flags", [["--cache", "/proc/segview-no-such-dir/x"],
                                   ["--out", "/nonexistent-folder/x.csv"]])
def test_cli_unwritable_paths_are_named(flags, capsys):
    rc = main(["detect", str(REPO / "resources/sample/jmh/s0002.json"), "-m", "binseg", *flags])
    err = capsys.readouterr().err
    assert rc == 2 and flags[1].split("/")[1] in err and "Traceback" not in err


# -- item 9: secrets and files --------------------------------------------------------------------

def test_out_is_not_overwritten_without_force(tmp_path, capsys):
    out = tmp_path / "res.csv"
    out.write_text("precious\n")
    args = ["detect", str(REPO / "resources/sample/jmh/s0002.json"), "-m", "binseg", "--out", str(out)]
    assert main(args) == 2
    assert "--force" in capsys.readouterr().err and out.read_text() == "precious\n"
    assert main([*args, "--force"]) == 0
    assert out.read_text().startswith("series_id,")


def test_every_out_option_has_force():
    from segview.cli.main import _subparsers, build_parser
    for sp in _subparsers(build_parser()):
        opts = {o for a in sp._actions for o in a.option_strings}
        if "--out" in opts:
            assert "--force" in opts, sp.prog


@pytest.mark.parametrize("text", [
    "postgresql+psycopg://judge:S3cr3t@db.example:5432/segview",
    "connection to postgresql://judge:S3cr3t@10.0.0.1/x failed",
    "host=x password=S3cr3t dbname=y",
])
def test_passwords_are_masked(text):
    masked = mask_secrets(text)
    assert "S3cr3t" not in masked and "***" in masked


# -- item 9: exports: formulas, atomicity, long ids ------------------------------------------------

def _session_with_hostile_names(tmp_path):
    from segview.core.annotation.session import AnnotationSession
    from segview.core.annotation.store import Store

    series = [segview.Series(np.asarray(STEP), id=sid)
              for sid in ("=cmd|' /C calc'!A0", "+SUM(1)", "-x", "@me", "'=quoted", "x" * 300, "ok")]
    store = Store(tmp_path / "db.sqlite")
    s = AnnotationSession.create(store, "hostile", series)
    judge = s.judge("=HYPERLINK(\"http://x\")", create=True)
    for k, ser in enumerate(series):
        s.record(judge, ser.id, steady=bool(k % 2), onset=60 if k % 2 else None)
    return store, s, series


@pytest.mark.parametrize("fmt", ["csv", "tcpd"])
def test_exports_escape_formulas_and_read_back_exactly(tmp_path, fmt):
    from segview.core.export import export_session, judgments_table

    store, s, series = _session_with_hostile_names(tmp_path)
    out = export_session(s, tmp_path / "out", fmt)
    for f in out.rglob("*.csv"):
        for row in csv.reader(f.open(newline="", encoding="utf-8")):
            for cell in row:
                assert cell[:1] not in ("=", "+", "@") and not (
                    cell[:1] == "-" and not cell.lstrip("-").replace(".", "").isdigit()), (f, cell)
    ds = segview.load(out)
    assert sorted(x.id for x in ds) == sorted(x.id for x in series)
    from segview.core.annotation.session import AnnotationSession
    back = AnnotationSession.create(store, "back", list(ds))
    from segview.core.export import import_judgments
    import_judgments(back, out)
    def strip(rows):
        return sorted((r["series_id"], r["judge"], r["steady"], r["index"]) for r in rows)

    assert strip(judgments_table(back)) == strip(judgments_table(s))
    store.close()


def test_failed_export_leaves_nothing_behind(tmp_path, monkeypatch):
    from segview.core import export as ex
    from segview.core.errors import OutputError

    store, s, _ = _session_with_hostile_names(tmp_path)

    def disk_full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ex, "_write_table", disk_full)
    with pytest.raises(OutputError) as info:  # named (issue 30): the export folder, the reason
        ex.export_session(s, tmp_path / "out", "csv")
    assert info.value.path == str(tmp_path / "out") and "no space left" in info.value.reason
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if ".partial-" in p.name] == []
    store.close()


def test_csv_escaping_is_a_bijection():
    from hypothesis import given, settings, strategies as st_
    from segview.core.safecsv import escape_cell, unescape_cell

    @settings(max_examples=300, deadline=None)
    @given(st_.text(alphabet=st_.sampled_from(list("'=+-@\t\r a1.")), max_size=6))
    def check(text):
        esc = escape_cell(text)
        assert unescape_cell(esc) == text
        try:
            float(text)
            numeric = True
        except ValueError:
            numeric = False
        assert numeric or esc[:1] not in ("=", "+", "-", "@", "\t", "\r")
    check()


def test_database_errors_never_show_the_password(capsys):
    from segview.core.annotation.store import Store
    from segview.core.errors import RecoverableError

    with pytest.raises(RecoverableError) as info:
        Store("postgresql://judge:Secret99@127.0.0.1:1/segview")
    assert "Secret99" not in str(info.value) and "judge:***@" in str(info.value)
    rc = main(["session", "list", "--db", "postgresql://judge:Secret99@127.0.0.1:1/segview"])
    cap = capsys.readouterr()
    assert rc == 2 and "Secret99" not in cap.err + cap.out


def test_binseg_says_when_fewer_change_points_fit_than_asked():
    res = segview.detect(np.asarray(STEP), "binseg", n_bkps=100_000)
    assert len(res.change_points) == len(STEP) - 1
    assert any(f"only {len(STEP) - 1} change points fit" in n for n in res.notes)
