"""``segview detect`` tells what a result rests on: its notes. A method whose default changed with
its version says so in each result's notes (docs/defaults.md: "each result made with a new default
says so in its notes"); JSON lists them per result, CSV tells the ones every series shares once per
method on standard error, and a result read back from the cache keeps them."""
import csv
import io
import json

import numpy as np
import pytest

from segview.cli.main import main

V2 = "cpnp version 2's default"


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(7)
    d = tmp_path / "series"
    d.mkdir()
    for i in range(3):
        y = np.r_[rng.normal(0, 1, 60), rng.normal(4 + i, 1, 60)]
        (d / f"s{i}.json").write_text(json.dumps([y.tolist()]))
    return d


def test_json_gives_each_results_notes(folder, tmp_path):
    out = tmp_path / "r.json"
    assert main(["detect", str(folder), "-m", "cpnp", "--format", "json", "-o", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert len(rows) == 3
    for row in rows:
        assert any(V2 in n for n in row["notes"]), row["notes"]
    out2 = tmp_path / "t.json"
    assert main(["detect", str(folder), "-m", "cpnp", "--preset", "tcpdbench", "--format", "json",
                 "-o", str(out2)]) == 0
    assert all(not any(V2 in n for n in row["notes"]) for row in json.loads(out2.read_text()))


def test_csv_tells_shared_notes_once_per_method(folder, capsys):
    assert main(["detect", str(folder), "-m", "cpnp"]) == 0
    cap = capsys.readouterr()
    assert len(list(csv.DictReader(io.StringIO(cap.out)))) == 3  # the table is unchanged
    told = [line for line in cap.err.splitlines() if V2 in line]
    assert len(told) == 1 and told[0].startswith("segview: note: cpnp: penalty times 5")
    # the standardisation note names each series' own mean and sd: counted, not repeated
    assert "cpnp: 3 more notes on some series only" in cap.err


def test_cached_results_keep_their_notes(folder, tmp_path):
    cache = tmp_path / "cache"
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        assert main(["detect", str(folder), "-m", "cpnp", "--cache", str(cache), "--format", "json",
                     "-o", str(out)]) == 0
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    assert [r["notes"] for r in a] == [r["notes"] for r in b]
    assert all(any(V2 in n for n in r["notes"]) for r in b)
