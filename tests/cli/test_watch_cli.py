"""``segview watch``: a file written in steps, read by explicit polls (no threads, no sleeps)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import segview
from segview.cli.main import main
from segview.cli.watch import Watcher
from segview.core.errors import DataFormatError
from segview.core.follow import SeriesFollower, parse_partial_json


def series(n: int = 700, seed: int = 1) -> list[float]:
    rng = np.random.default_rng(seed)
    x = np.concatenate((np.linspace(30, 12, 60), 10 + rng.normal(0, 0.5, n - 60)))
    return [round(float(v), 6) for v in x]


def batch_onset(x, **params):
    return segview.detect(np.asarray(x, dtype=float), "kbkssd", **params).steady_start


# --- partial JSON ------------------------------------------------------------------------------

def test_partial_json_at_every_cut():
    doc = {"a": [1, 2.5, -3e-2, True, None], "b": {"c": "x]y", "d": [[1], []]}}
    text = json.dumps(doc)
    for cut in range(len(text) + 1):
        got = parse_partial_json(text[:cut])
        if cut == len(text):
            assert got == doc and got.closed
            continue
        # every value read is a value of the document (numbers reaching the cut are left out)
        if got is not None:
            assert not got.closed
            for key, value in got.items():
                if key == "a":
                    assert value == doc["a"][:len(value)]
    assert parse_partial_json("[1.5, 2.25") == [1.5]  # "2.25" may still grow
    assert parse_partial_json("[1.5, 2.25,") == [1.5, 2.25]
    assert parse_partial_json("") is None


@pytest.mark.parametrize("text", ["[1, 2] 3", "[1, x]", "]", "[1}"])
def test_partial_json_rejects_what_cannot_become_json(text):
    with pytest.raises(DataFormatError, match="offset"):
        parse_partial_json(text)


# --- the follower and watcher, driven step by step ---------------------------------------------

def write_steps(path, text: str, cuts: list[int]):
    for cut in cuts:
        path.write_text(text[:cut])
        yield cut


def test_watch_fork_list_written_in_steps(tmp_path):
    x = series()
    text = json.dumps([x])
    path = tmp_path / "run.json"
    w = Watcher(str(path))
    assert w.poll() is None  # no file yet
    cuts = [1, 7, len(text) // 9, len(text) // 3, len(text) - 1, len(text)]
    verdicts = []
    for _ in write_steps(path, text, cuts):
        verdicts.append(w.poll())
    assert verdicts[0] is None  # "[" only
    seen = [v.seen for v in verdicts if v is not None]
    assert seen == sorted(seen) and w.follower.name == "run/fork0"
    fed = np.asarray(w.monitor.values)
    assert list(fed) == x  # every value exactly once, none of a half-written number
    first = w.monitor.first_steady
    assert first is not None and first.since == batch_onset(x[:first.seen])
    last = verdicts[-1]
    assert last.final and last.since == batch_onset(x)  # the closing "]" completes the series
    assert w.poll() == last  # a complete series keeps its final verdict


def test_watch_jmh_result_file_follows_the_last_fork(tmp_path):
    a, b = series(seed=2), series(seed=3)
    doc = [{"benchmark": "org.Bench.run", "params": {"n": "8"},
            "primaryMetric": {"scoreUnit": "s/op", "rawData": [a, b]}}]
    text = json.dumps(doc)
    path = tmp_path / "jmh.json"
    split = text.index(json.dumps(b)) + 40  # a complete, b started
    path.write_text(text[:split])
    w = Watcher(str(path), total=len(b))
    w.poll()
    assert w.follower.name == "org.Bench.run[n=8]/fork1"
    path.write_text(text)
    v = w.poll()
    assert v.final and list(w.monitor.values) == b and v.since == batch_onset(b)
    first = Watcher(str(path), series="0")
    assert first.poll().final and first.follower.name.endswith("fork0")


def test_watch_csv_one_value_per_line_with_partial_last_line(tmp_path):
    x = series(400)
    path = tmp_path / "run.csv"
    lines = "".join(f"{v}\n" for v in x)
    w = SeriesFollower(path)
    got = []
    for cut in (5, 50, 1000, len(lines) - 3, len(lines)):
        path.write_text(lines[:cut])
        got.extend(w.poll())
    assert got == x
    assert not w.complete


def test_watch_wide_and_long_csv(tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_text("index,a,b\n0,1.5,2\n1,2.5,\n2,3.5,")  # last line incomplete
    f = SeriesFollower(wide, series="b")
    assert list(f.poll()) == [2.0] and f.complete  # the blank cell ends b
    f = SeriesFollower(wide)
    assert list(f.poll()) == [1.5, 2.5] and f.name == "a" and not f.complete
    long = tmp_path / "long.csv"
    long.write_text("series_id,index,value\ns,0,1\nt,0,9\ns,1,2\n")
    f = SeriesFollower(long, series="s")
    assert list(f.poll()) == [1.0, 2.0]
    with long.open("a") as fh:
        fh.write("s,3,4\n")
    with pytest.raises(DataFormatError, match="index '3' where 2 comes next"):
        f.poll()


def jmh_log(forks: list[list[float]]) -> str:
    out = ["# JMH version: 1.37", "# Benchmark: org.Bench.run", "# Parameters: (n = 8)", ""]
    for k, fork in enumerate(forks):
        out += [f"# Fork: {k + 1} of {len(forks)}", "# Warmup Iteration   1: 99.000 ns/op"]
        out += [f"Iteration {i + 1:4d}: {v:.6f} ns/op" for i, v in enumerate(fork)]
        out += ["                 ·gc.alloc.rate:      0.001 MB/sec", ""]
    return "\n".join(out + ['Result "org.Bench.run":', ""])


def test_watch_jmh_console_log_in_steps(tmp_path):
    a, b = series(300, seed=4), series(500, seed=5)
    text = jmh_log([a, b])
    path = tmp_path / "run.log"
    start_b = text.index("# Fork: 2")
    path.write_text(text[:start_b + 5])  # fork 2's header line is still incomplete
    w = Watcher(str(path))
    v = w.poll()
    assert w.follower.name == "org.Bench.run[n=8]/fork0" and not v.final  # fork 2 not begun
    path.write_text(text[:start_b + 400])
    v = w.poll()
    assert v.final and list(w.monitor.values) == a and v.since == batch_onset(a)
    w2 = Watcher(str(path))
    w2.poll()
    assert w2.follower.name.endswith("/fork1")  # the fork being written
    path.write_text(text)
    v = w2.poll()
    assert v.final and list(w2.monitor.values) == b and v.since == batch_onset(b)
    path.write_text(text.replace("Iteration    7: ", "Iteration    7: ≈ 10⁻⁴ ns/op #"))
    with pytest.raises(DataFormatError, match="-tu ns"):
        SeriesFollower(path, series="0").poll()


def test_rewritten_file_is_an_error(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("[[1, 2, 3, 4,")
    f = SeriesFollower(path)
    assert list(f.poll()) == [1, 2, 3, 4]
    for transient in ("", "[", "[[1, 2,"):  # a writer re-dumping the file, caught midway
        path.write_text(transient)
        assert list(f.poll()) == []
    path.write_text("[[1, 2, 3, 4, 5,")
    assert list(f.poll()) == [5]
    path.write_text("[[1, 2, 7, 4, 5, 6,")
    with pytest.raises(DataFormatError, match="rewritten"):
        f.poll()


# --- the command -------------------------------------------------------------------------------

def test_watch_once_exit_codes(tmp_path, capsys):
    x = series()
    path = tmp_path / "run.json"
    text = json.dumps([x])
    path.write_text(text[:200])  # fewer samples than KB-KSSD needs
    assert main(["watch", str(path), "--once"]) == 1
    assert "needs at least 101" in capsys.readouterr().out
    path.write_text(text[:text.index(", ", 3000)])
    assert main(["watch", str(path), "--once"]) == 0
    out, err = capsys.readouterr()
    checked = int(re.search(r"checked on (\d+) of", out).group(1))
    assert f"steady since sample {batch_onset(x[:checked])} " in out and "samples" in err
    assert main(["watch", str(path), "--once", "-p", "min_steady_length=2000"]) == 1
    assert "not steady yet" in capsys.readouterr().out
    path.write_text(text)
    assert main(["watch", str(path), "--once", "-p", "min_steady_length=2000"]) == 1
    assert "never steady" in capsys.readouterr().out  # complete: final "no"
    assert main(["watch", str(path), "--timeout", "0", "--total", str(len(x)), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got == {"series": "run/fork0", "steady": True, "since": batch_onset(x), "final": True,
                   "seen": len(x), "checked": len(x), "first_steady_after": 101}
    assert batch_onset(x[:101]) is not None  # 101 = the first check (KB-KSSD's minimum length)


def test_watch_errors_exit_2(tmp_path, capsys):
    assert main(["watch", str(tmp_path / "missing.json"), "--once"]) == 2
    assert main(["watch", str(tmp_path), "--timeout", "0"]) == 2
    assert "folder" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("[[1, 2, oops")
    assert main(["watch", str(bad), "--once"]) == 2
    assert "offset" in capsys.readouterr().err
    assert main(["watch", str(bad), "--once", "-p", "t_crit=-1"]) == 2
