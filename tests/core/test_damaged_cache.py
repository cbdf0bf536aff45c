"""Issue 30, item 8: a damaged result cache (``--cache``) is a miss, never a traceback.

Random bytes in its SQLite file, damaged pages, a truncated file, a folder in its place, and
entries that do not decode to a result: the run completes with the right results, with one
warning naming the file, and a rebuilt cache serves the next run.
"""
from __future__ import annotations

import logging
import sqlite3

import numpy as np
import pytest

import segview
from segview.cli.main import main
from segview.core.evaluation.batch import run_batch, run_onsets

SERIES = [segview.Series(np.r_[np.zeros(60), np.full(60, 5.0)] + 0.01 * np.sin(np.arange(120.0)),
                         id=f"s{k}") for k in range(3)]
EXPECTED = [60]  # the step's first sample: binseg finds it on a noiseless step


def _fill(cache_dir, n_series: int = 300) -> None:
    """A cache with enough entries to span several pages."""
    rng = np.random.default_rng(2)
    many = [segview.Series(rng.normal(size=30), id=f"m{k}") for k in range(n_series)]
    run_batch(many, ["zero"], workers=1, cache_dir=cache_dir)


def _random(path):
    path.write_bytes(np.random.default_rng(1).bytes(8192))


def _pages(path):
    _fill(path.parent)
    raw = bytearray(path.read_bytes())
    assert len(raw) > 3 * 4096
    raw[4096:] = np.random.default_rng(3).bytes(len(raw) - 4096)
    path.write_bytes(bytes(raw))


def _truncated(path):
    _fill(path.parent)
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 3])


def _folder(path):
    path.mkdir()


def _header(path):
    _fill(path.parent)
    raw = bytearray(path.read_bytes())
    raw[:16] = b"not sqlite here!"
    path.write_bytes(bytes(raw))


DAMAGE = {"random bytes": _random, "damaged pages": _pages, "truncated": _truncated,
          "folder in its place": _folder, "header overwritten": _header}


def _warnings(caplog, path) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno >= logging.WARNING and str(path) in r.getMessage()]


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_damaged_cache_file_is_a_miss_with_one_warning(tmp_path, caplog, kind):
    path = tmp_path / "results.sqlite"
    DAMAGE[kind](path)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        rows = run_batch(SERIES, ["binseg"], workers=1, cache_dir=tmp_path)
    assert [r["change_points"] for r in rows] == [EXPECTED] * 3
    assert all(r["error"] is None for r in rows)
    assert len(_warnings(caplog, path)) == 1, caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        again = run_batch(SERIES, ["binseg"], workers=1, cache_dir=tmp_path)
    assert [r["change_points"] for r in again] == [EXPECTED] * 3
    if kind != "folder in its place":  # rebuilt: the second run is served from the cache
        assert all(r["cached"] for r in again) and _warnings(caplog, path) == []


@pytest.mark.parametrize("value", ["[1,", "5", "null", '{"steady_index": "x"}',
                                   '{"steady_index": null, "change_points": ["a"], "runtime_ms": 1}',
                                   '{"steady_index": null, "change_points": [60]}',
                                   '{"steady_index": true, "change_points": [], "runtime_ms": 1}'])
def test_a_corrupted_entry_is_recomputed(tmp_path, caplog, value):
    run_batch(SERIES, ["binseg"], workers=1, cache_dir=tmp_path)
    path = tmp_path / "results.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE results SET value = ?", (value,))
    db.close()
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        rows = run_batch(SERIES, ["binseg"], workers=1, cache_dir=tmp_path)
        onsets, failed = run_onsets(SERIES, ["kbkssd"], workers=1, cache_dir=tmp_path)
    assert [r["change_points"] for r in rows] == [EXPECTED] * 3
    assert not any(r["cached"] for r in rows) and failed == 0
    assert len(_warnings(caplog, path)) == 1, caplog.text
    # the recomputed results replaced the damaged entries
    assert all(r["cached"] for r in run_batch(SERIES, ["binseg"], workers=1, cache_dir=tmp_path))


def test_detect_with_a_damaged_cache_succeeds_and_names_the_file(tmp_path, capsys, caplog):
    cache = tmp_path / "cache"
    cache.mkdir()
    _random(cache / "results.sqlite")
    data = tmp_path / "s.json"
    data.write_text(str([SERIES[0].values.tolist()]))
    out = tmp_path / "o.csv"
    with caplog.at_level(logging.WARNING):
        assert main(["detect", str(data), "-m", "binseg", "--cache", str(cache),
                     "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(_warnings(caplog, cache / "results.sqlite")) == 1
    assert out.read_text().splitlines()[1].split(",")[3] == "60"


@pytest.mark.parametrize("damage", ["random bytes", "text value"])
def test_the_shared_disk_memo_treats_damage_as_a_miss(tmp_path, monkeypatch, damage):
    from segview.core.diskmemo import DiskMemo

    monkeypatch.setenv("SEGVIEW_CACHE_DIR", str(tmp_path))
    memo = DiskMemo("crit")
    memo.put("k", 1.5)
    assert memo.get("k") == 1.5
    memo.close()
    if damage == "random bytes":
        _random(tmp_path / "crit.sqlite")
        for extra in ("crit.sqlite-wal", "crit.sqlite-shm"):
            (tmp_path / extra).unlink(missing_ok=True)
    else:
        with sqlite3.connect(tmp_path / "crit.sqlite") as db:
            db.execute("UPDATE memo SET value = 'abc'")
        db.close()
    memo = DiskMemo("crit")
    assert memo.get("k") is None
    memo.put("k", 2.0)  # never raises; the caller simply computes again
    memo.close()
