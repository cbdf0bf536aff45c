"""``segview session``: judge assignment (k per series), coverage, adjudications in exported
judgments, clean JSON on stdout, LF line endings, relative sources (issue 13)."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import segview
from segview.cli.main import main
from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store
from segview.core.errors import InputError


def _series(n: int = 10) -> list[segview.Series]:
    rng = np.random.default_rng(5)
    return [segview.Series(rng.normal(size=120), id=f"s{k:02d}") for k in range(n)]


def test_k3_over_10_series_and_5_judges_gives_every_series_3_judges(tmp_path):
    s = AnnotationSession.create(Store(tmp_path / "a.sqlite"), "pilot", _series())
    judges = [s.judge(n, create=True) for n in "abcde"]
    got = s.assign(3, seed=42)
    per_series: dict[str, set[str]] = {}
    for name, sids in got.items():
        assert len(sids) == len(set(sids))
        for sid in sids:
            per_series.setdefault(sid, set()).add(name)
    assert sorted(per_series) == [f"s{k:02d}" for k in range(10)]
    assert all(len(v) == 3 for v in per_series.values())
    assert sorted(len(v) for v in got.values()) == [6, 6, 6, 6, 6]  # 30 slots over 5 judges
    # the plan, progress and coverage follow the assignment
    assert {it.series_id for it in s.order(judges[0])} == set(got["a"])
    assert s.progress(judges[0]) == {"a": (0, 6)}
    assert set(s.coverage().values()) == {(0, 3)}
    # seeded: the same seed gives the same assignment; another seed another one
    assert s.assign(3, seed=42) == got and s.assign(3, seed=43) != got
    shared = s.assign(3, seed=42, shared_order=True)
    assert {k: set(v) for k, v in shared.items()} == {k: set(v) for k, v in got.items()}
    # one common order: no two judges meet two series in opposite orders
    pairs = {(a, b) for sids in shared.values() for i, a in enumerate(sids) for b in sids[i + 1:]}
    assert not any((b, a) in pairs for a, b in pairs)
    with pytest.raises(InputError, match="1 <= k <= the number of judges"):
        s.assign(6)


def test_shared_order_is_one_common_order(tmp_path):
    s = AnnotationSession.create(Store(tmp_path / "a.sqlite"), "p", _series(12))
    for n in "abcd":
        s.judge(n, create=True)
    got = s.assign(4, seed=1, shared_order=True)  # k = J: everybody has everything
    assert len({tuple(v) for v in got.values()}) == 1
    own = s.assign(4, seed=1)
    assert len({tuple(v) for v in own.values()}) > 1


def _session_with_adjudication(tmp_path):
    db = tmp_path / "a.sqlite"
    data = tmp_path / "data"
    data.mkdir()
    rng = np.random.default_rng(2)
    with open(data / "series.csv", "w") as fh:
        fh.write("series_id,index,value\n")
        for k in range(4):
            for i, v in enumerate(rng.normal(size=150).tolist()):
                fh.write(f"s{k:04d},{i},{v!r}\n")
    assert main(["session", "create", "t", str(data), "--db", str(db), "--judge", "a", "--judge",
                 "b", "--adjudicator", "chief"]) == 0
    s = AnnotationSession.open(Store(db), "t")
    a, b, chief = s.judge("a"), s.judge("b"), s.judge("chief")
    s.record(a, "s0000", steady=True, onset=20)
    s.record(b, "s0000", steady=True, onset=30)
    s.record(a, "s0001", steady=True, onset=40)
    s.record(b, "s0001", steady=False)  # a tie: disputed without the adjudicator
    s.adjudicate(chief, "s0001", steady=True, onset=45)
    s.record(a, "s0002", steady=False)
    return db, s


def test_export_judgments_keeps_adjudications_and_aggregates_to_the_same_truth(tmp_path, capsys):
    db, s = _session_with_adjudication(tmp_path)
    j = tmp_path / "judgments.csv"
    assert main(["session", "export-judgments", "t", "--out", str(j), "--db", str(db)]) == 0
    rows = list(csv.DictReader(open(j, newline="")))
    assert [(r["series_id"], r["judge"], r["role"]) for r in rows if r["role"] != "judge"] == [
        ("s0001", "chief", "adjudicator")]
    assert main(["session", "aggregate", "t", "--out", str(tmp_path / "gt1.csv"),
                 "--db", str(db)]) == 0
    assert main(["aggregate", str(j), "--out", str(tmp_path / "gt2.csv")]) == 0
    gt1 = (tmp_path / "gt1.csv").read_text()
    assert gt1 == (tmp_path / "gt2.csv").read_text()
    assert "adjudicated" in gt1
    raw = (tmp_path / "gt1.csv").read_bytes() + j.read_bytes()
    assert b"\r\n" not in raw and raw.count(b"\n") > 4  # LF line endings


def test_stats_print_clean_json_on_stdout_and_report_missing_judgments(tmp_path, capsys):
    db, s = _session_with_adjudication(tmp_path)
    capsys.readouterr()
    assert main(["session", "aggregate", "t", "--out", str(tmp_path / "gt.csv"), "--stats",
                 "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    stats = json.loads(out)  # nothing but JSON
    assert "fleiss_kappa" in json.dumps(stats) or stats
    assert stats["under_covered"] == {"s0002": {"judges": 1, "wanted": 2},
                                      "s0003": {"judges": 0, "wanted": 2}}
    assert "aggregated" in err and "fewer judgments" in err
    j = tmp_path / "j.csv"
    assert main(["session", "export-judgments", "t", "--out", str(j), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["aggregate", str(j), "--out", str(tmp_path / "gt2.csv"), "--stats"]) == 0
    out, err = capsys.readouterr()
    json.loads(out)
    assert "series:" in err


def test_progress_shows_coverage_per_series(tmp_path, capsys):
    db, s = _session_with_adjudication(tmp_path)
    capsys.readouterr()
    assert main(["session", "progress", "t", "--series", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "coverage: 2 of 4 series have all their judges" in out
    assert "s0003  0 / 2 judges  (missing)" in out
    assert main(["session", "progress", "t", "--series", "--json", "--db", str(db)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["series"]["s0002"] == {"judges": 1, "wanted": 2}


def test_create_with_k_judges_per_series(tmp_path, capsys):
    db = tmp_path / "a.sqlite"
    data = tmp_path / "data"
    data.mkdir()
    for k, s in enumerate(_series()):
        np.savetxt(data / f"s{k:02d}.csv", s.values, header=f"s{k:02d}", comments="")
    args = ["session", "create", "p", str(data), "--db", str(db), "-k", "3", "--assign-seed", "7"]
    for n in "abcde":
        args += ["--judge", n]
    assert main(args) == 0
    s = AnnotationSession.open(Store(db), "p")
    assert set(s.judges_per_series().values()) == {3}


def test_exported_sources_are_relative_to_the_data_root(tmp_path, monkeypatch):
    db, s = _session_with_adjudication(tmp_path)
    monkeypatch.chdir(tmp_path / "data")
    out = tmp_path / "exp"
    assert main(["session", "export", "t", "--out", str(out), "--db", str(db)]) == 0
    rows = list(csv.DictReader(open(out / "labels.csv", newline="")))
    assert {r["source"] for r in rows} == {"series.csv"}
    assert b"\r\n" not in (out / "labels.csv").read_bytes()


def test_aggregate_reports_series_with_fewer_than_k_judgments(tmp_path, capsys):
    j = tmp_path / "j.csv"
    j.write_text("series_id,judge,steady,index\na,x,1,5\na,y,1,6\na,z,1,5\nb,x,0,\nb,y,1,3\n")
    assert main(["aggregate", str(j), "--out", str(tmp_path / "gt.csv"), "-k", "3",
                 "--stats"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["under_covered"] == {"b": {"judges": 2, "wanted": 3}}
    assert "1 series have fewer than 3 judgments: b (2)" in err
