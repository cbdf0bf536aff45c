"""Labeled-dataset export and import: every label round-trips exactly in each format; TCPD IO."""
from __future__ import annotations

import json

import numpy as np
import pytest

import segview
from segview.core import export as ex
from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store
from segview.core.errors import DataFormatError, InputError
from segview.core.io import tcpd_json
from segview.core.io.labels_csv import read_labels
from segview.core.model import Series

KEYS = ("series_id", "judge", "role", "steady", "index", "change_points", "confidence", "note",
        "repeat")


def _series():
    rng = np.random.default_rng(5)
    out = [Series(rng.normal(size=300).cumsum() * 1e-7 + k, id=f"bench/fork{k}") for k in range(5)]
    out.append(Series(rng.normal(size=40), x=np.arange(40) * 2.5, id="with x"))
    return out


def _steady_session(store):
    s = AnnotationSession.create(store, "study", _series(), settings={"calibration": 2})
    judges = [s.judge(n, create=True, seed=k) for k, n in enumerate(("a", "b", "c"))]
    onsets = {"bench/fork0": (10, 20, 30), "bench/fork1": (5, 200, 290),
              "bench/fork2": (None, None, 100), "bench/fork3": (0, 0, 0)}
    for sid, vals in onsets.items():
        for j, v in zip(judges, vals):
            s.record(j, sid, steady=v is not None, onset=v)
    s.record(judges[0], "bench/fork4", steady=True, confidence=0.625, note="hard, spiky")
    s.record(judges[1], "with x", steady=False, confidence=1 / 3)
    again = s.calibration_items(judges[0])[0].series_id
    s.record(judges[0], again, steady=True, onset=7, repeat=True)
    chief = s.judge("chief", create=True, role="adjudicator", seed=99)
    s.adjudicate(chief, "bench/fork2", steady=False, note="meeting 3")
    return s


def _cp_session(store):
    s = AnnotationSession.create(store, "cps", _series()[:3], protocol="change_points",
                                 settings={"eps": 5})
    a, b = s.judge("a", create=True), s.judge("b", create=True)
    s.record(a, "bench/fork0", change_points=[50, 120])
    s.record(b, "bench/fork0", change_points=[52])
    s.record(a, "bench/fork1", change_points=[])
    return s


def _key(rows):
    return sorted(tuple(r[k] for k in KEYS) for r in rows)


@pytest.mark.parametrize("fmt", ex.FORMATS)
@pytest.mark.parametrize("maker", [_steady_session, _cp_session])
def test_round_trip_every_label(tmp_path, fmt, maker):
    store = Store(tmp_path / "a.sqlite")
    s = maker(store)
    original = ex.judgments_table(s)
    folder = ex.export_session(s, tmp_path / f"out-{fmt}", fmt)
    back = ex.read_export(folder)
    assert _key(back.judgments) == _key(original)
    assert [(x.id, x.content_hash) for x in back.series] == \
           [(x.id, x.content_hash) for x in _series()[:len(back.series)]]
    meta = back.metadata
    assert meta["session"]["name"] == s.name and meta["aggregation"]["rule"] == "general"
    assert meta["segview_version"] == segview.__version__
    assert {j["name"]: j["seed"] for j in meta["judges"]}["a"] == s.judge("a").seed

    # import into a fresh store built from the exported series: the same labels
    fresh = AnnotationSession.create(Store(tmp_path / "b.sqlite"), "again", back.series,
                                     protocol=s.protocol,
                                     settings={k: s.settings[k] for k in ("eps", "calibration")})
    assert ex.import_judgments(fresh, folder) == len(original)
    assert _key(ex.judgments_table(fresh)) == _key(original)
    assert [j.seed for j in fresh.judges()] == [j.seed for j in s.judges()]
    def strip(rows):
        return [{k: v for k, v in r.items() if k != "source"} for r in rows]
    assert strip(ex.labels_table(fresh)) == strip(ex.labels_table(s))


def test_labels_table_matches_aggregation_and_labels_csv_reader(tmp_path):
    s = _steady_session(Store(tmp_path / "a.sqlite"))
    folder = ex.export_session(s, tmp_path / "out", "csv")
    rows = read_labels(folder / "labels.csv")
    gt = {g.series_id: g for g in s.aggregate()}
    assert rows["bench/fork0"].jagt_index == 20 and rows["bench/fork0"].jagt_clustered is True
    assert rows["bench/fork1"].judges == {"a": 5, "b": 200, "c": 290}
    assert rows["bench/fork1"].jagt_index == gt["bench/fork1"].reference_index == 200
    assert rows["bench/fork2"].steady is False  # adjudicated
    assert rows["bench/fork2"].judges == {"a": None, "b": None, "c": 100}
    assert rows["bench/fork3"].jagt_index == 0
    loaded = segview.load(folder)
    assert {x.id for x in loaded} == {x.id for x in _series()}
    assert folder / "labels.csv" in loaded.label_files


def test_tcpd_export_is_tcpd(tmp_path):
    s = _steady_session(Store(tmp_path / "a.sqlite"))
    folder = ex.export_session(s, tmp_path / "out", "tcpd")
    ann = tcpd_json.read_annotations(folder / "annotations.json", keep_zero=True)
    assert ann["bench/fork1"] == {"a": [5], "b": [200], "c": [290]}
    assert ann["bench/fork2"] == {"a": [], "b": [], "c": [100]}  # [] = looked, no onset
    assert ann["bench/fork3"]["a"] == [0]
    assert "chief" not in ann["bench/fork2"] and "bench/fork4" not in ann
    ds = json.loads((folder / "datasets" / "bench_fork0" / "bench_fork0.json").read_text())
    assert set(ds) >= {"name", "longname", "n_obs", "n_dim", "time", "series"}
    assert ds["name"] == "bench/fork0" and ds["n_obs"] == 300
    (x,) = segview.load(folder / "datasets" / "bench_fork0" / "bench_fork0.json")
    assert x.id == "bench/fork0" and x.content_hash == _series()[0].content_hash

    # the bare annotations file imports the same onsets
    fresh = AnnotationSession.create(Store(tmp_path / "b.sqlite"), "t", _series())
    ex.import_judgments(fresh, folder / "annotations.json")
    assert fresh.label(fresh.judge("c"), "bench/fork2").onset == 100
    assert fresh.label(fresh.judge("a"), "bench/fork2").steady is False
    assert fresh.label(fresh.judge("a"), "bench/fork3").onset == 0


def test_public_tcpd_dataset_file(tmp_path):
    obj = {"name": "brent_spot", "longname": "Brent Spot Price", "n_obs": 5, "n_dim": 2,
           "time": {"type": "string", "format": "%Y-%m-%d", "index": [0, 1, 2, 3, 4],
                    "raw": ["2000-01-01", "2000-02-01", "2000-03-01", "2000-04-01", "2000-05-01"]},
           "series": [{"label": "V1", "type": "float", "raw": [1.5, 2, 3, 4, 5]},
                      {"label": "V2", "type": "int", "raw": [1, 1, 1, 9, 9]}]}
    p = tmp_path / "brent_spot.json"
    p.write_text(json.dumps(obj))
    got = segview.load(p)
    # issue 13: a two-dimensional data set is one multivariate series keeping TCPD's name
    assert [x.id for x in got] == ["brent_spot"] and got[0].dims == ("V1", "V2")
    assert got[0].values[:, 0].tolist() == [1.5, 2, 3, 4, 5]
    assert got[0].values[:, 1].tolist() == [1, 1, 1, 9, 9]
    assert got[0].metadata["time"][3] == "2000-04-01"
    obj["series"][0]["raw"][2] = None
    p.write_text(json.dumps(obj))
    with pytest.raises(DataFormatError, match=r"index 2"):
        tcpd_json.read(p)
    obj["n_obs"] = 7
    p.write_text(json.dumps(obj))
    with pytest.raises(DataFormatError, match="n_obs"):
        tcpd_json.read(p)
    bad = tmp_path / "annotations.json"
    bad.write_text(json.dumps({"brent_spot": {"1": [3, "x"]}}))
    with pytest.raises(DataFormatError, match="annotator '1'"):
        tcpd_json.read_annotations(bad)


def test_tampered_export_and_foreign_data_are_rejected(tmp_path):
    s = _steady_session(Store(tmp_path / "a.sqlite"))
    folder = ex.export_session(s, tmp_path / "out", "json")
    with pytest.raises(InputError, match="not empty"):
        ex.export_session(s, folder, "json")
    other = AnnotationSession.create(Store(tmp_path / "c.sqlite"), "other",
                                     [Series(np.zeros(300), id="bench/fork0")])
    with pytest.raises(DataFormatError, match="different data"):
        ex.import_judgments(other, folder)
    text = (folder / "judgments.json").read_text().replace('"index": 20', '"index": 21')
    (folder / "judgments.json").write_text(text)
    with pytest.raises(DataFormatError, match="SHA-256"):
        ex.read_export(folder)


def test_import_judgments_csv(tmp_path):
    s = AnnotationSession.create(Store(tmp_path / "a.sqlite"), "t", _series())
    src = tmp_path / "j.csv"
    src.write_text("series_id,judge,steady,index\nbench/fork0,x,1,12\nbench/fork0,y,0,\n")
    assert ex.import_judgments(s, src) == 2
    assert s.label(s.judge("x"), "bench/fork0").onset == 12
    src.write_text("series_id,judge,steady,index\nnope,x,1,12\n")
    with pytest.raises(InputError, match="not in session"):
        ex.import_judgments(s, src)


@pytest.mark.shared
def test_jmh_session_exports_the_published_labels(tmp_path, jmh_labels, jmh_series):
    """The whole path on the study's data: a session over the 350 JMH series, the five judges'
    labels imported, aggregated with the reference rule and exported: the exported labels table
    carries labels.csv's steady flag, judges' onsets, jagt_index and jagt_clustered."""
    ids = sorted(jmh_labels)
    s = AnnotationSession.create(Store(tmp_path / "jmh.sqlite"), "jmh",
                                 [jmh_series[i] for i in ids],
                                 settings={"rule": "reference"})
    judges = {j: s.judge(j, create=True) for j in "abcde"}
    s.record_many([(judges[j], sid, {"steady": bool(r.steady),
                                     "onset": r.judges[j] if r.steady else None})
                   for sid, r in jmh_labels.items() for j in "abcde"])
    folder = ex.export_session(s, tmp_path / "out", "csv")
    got = read_labels(folder / "labels.csv")
    keys = ("steady", "judges", "jagt_index", "jagt_clustered")
    differ = [sid for sid, r in jmh_labels.items()
              if any(getattr(got[sid], k) != getattr(r, k) for k in keys)]
    assert len(got) == 350 and differ == []
