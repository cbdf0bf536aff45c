"""Issue 30, item 10: files of many small series load in bounded memory with progress, and running
out of memory is reported as such (file, series, command), never as a raw MemoryError or as "a bug
in segview".

The memory bound is counted with tracemalloc (allocations, not the machine's speed): before the fix
a million three-point forks took 56 s and 890 MB (772 bytes per fork at the peak, 532 kept).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import segview
from segview.core.context import RunContext
from segview.core.errors import Cancelled, DataFormatError
from segview.core.model import Series
from segview.core.params import ParamSpec
from segview.core.registry import DetectorSpec

ROOT = Path(__file__).resolve().parents[2]


def _forks(path: Path, n: int, length: int = 3) -> Path:
    path.write_text(json.dumps([[1 + (k + j) % 7 for j in range(length)] for k in range(n)],
                               separators=(",", ":")))
    return path


def test_many_small_forks_load_in_bounded_memory_with_every_value(tmp_path):
    n = 100_000
    path = _forks(tmp_path / "forks.json", n)
    segview.load(tmp_path / "forks.json")  # imports and first-use caches out of the count
    tracemalloc.start()
    try:
        ds = segview.load(path)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # 3 float64 values are 24 bytes; a Series, its array view, its id and its metadata ~350 more
    assert peak / n < 550, f"{peak / n:.0f} bytes per fork at the peak"
    assert kept / n < 450, f"{kept / n:.0f} bytes per fork kept"
    assert len(ds) == n and ds[0].id == "forks/fork0" and ds[n - 1].id == f"forks/fork{n - 1}"
    data = json.loads(path.read_text())
    for k in (0, 1, 12345, n - 1):  # values from the file, not from the reader
        s = ds[k]
        assert s.values.tolist() == [float(v) for v in data[k]]
        assert not s.values.flags.writeable and s.values.flags.c_contiguous
        assert dict(s.metadata) == {"source": str(path), "fork": k, "format": "jmh",
                                    # the fork list is one benchmark, its forks the executions
                                    "benchmark": "forks", "execution": k, "harness": "jmh",
                                    "unit": "", "direction": None, "warmup": 0}
        assert s.x is None and s.dims == ()


def test_unequal_fork_lengths_keep_their_values(tmp_path):
    path = tmp_path / "ragged.json"
    data = [[1.5, 2.5], [3.0], [4, 5, 6, 7]]
    path.write_text(json.dumps(data))
    ds = segview.load(path)
    assert [s.values.tolist() for s in ds] == [[1.5, 2.5], [3.0], [4.0, 5.0, 6.0, 7.0]]
    assert [s.id for s in ds] == ["ragged/fork0", "ragged/fork1", "ragged/fork2"]


def test_progress_within_one_file_and_cancel_midway(tmp_path):
    path = _forks(tmp_path / "forks.json", 300_000)
    seen: list[tuple[float, str]] = []
    ctx = RunContext(min_interval=0.0)
    ctx.on_progress = lambda f, m: seen.append((f, m))
    ds = segview.load(path, ctx=ctx)
    inside = [(f, m) for f, m in seen if 0.0 < f < 1.0 and "fork" in m]
    assert len(ds) == 300_000 and len(inside) >= 3, seen[:5]
    assert all("forks.json" in m for _, m in inside)
    assert [f for f, _ in inside] == sorted(f for f, _ in inside)

    stop = RunContext(min_interval=0.0)
    stop.on_progress = lambda f, m: stop.cancel() if 0.2 < f < 1.0 else None
    with pytest.raises(Cancelled):
        segview.load(path, ctx=stop)


def test_folder_load_gives_each_file_its_share_of_progress(tmp_path):
    for name in ("a.json", "b.json"):
        _forks(tmp_path / name, 150_000)
    seen: list[float] = []
    ctx = RunContext(min_interval=0.0)
    ctx.on_progress = lambda f, m: seen.append(f)
    segview.load(tmp_path, ctx=ctx)
    assert any(0.0 < f < 0.5 for f in seen) and any(0.5 < f < 1.0 for f in seen)
    assert seen == sorted(seen)


def _raise_memory(values, params, ctx):
    raise MemoryError()


def test_a_detector_out_of_memory_is_named_not_called_a_bug():
    from segview.core.evaluation.batch import MethodSpec, run_batch
    spec = DetectorSpec(name="hungry", label="Hungry", version="1", produces="change_points",
                        params=(ParamSpec("k", "int", 1, 1, 10),), run=_raise_memory)
    rows = run_batch([Series(np.arange(50.0), id="s1")], [MethodSpec(spec, spec.defaults())],
                     workers=1)
    err = rows[0]["error"]
    assert "out of memory while running hungry" in err and "50 samples" in err
    assert "bug in segview" not in err


def test_cli_out_of_memory_is_one_line_naming_the_command(tmp_path, monkeypatch, capsys):
    from segview.cli import detect
    from segview.cli.main import main
    path = tmp_path / "s.json"
    path.write_text(json.dumps([[1.0] * 20 + [5.0] * 20]))

    def no_memory(*a, **k):
        raise MemoryError()

    monkeypatch.setattr(detect, "run_batch", no_memory)
    code = main(["detect", "-m", "binseg", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "out of memory while running 'segview detect'" in err
    assert "Traceback" not in err and "MemoryError" not in err


def test_a_file_too_large_for_memory_is_named(tmp_path, monkeypatch):
    from segview.core.io import jmh_json
    path = tmp_path / "big.json"
    path.write_text("[[1, 2], [3, 4]]")

    def no_memory(*a, **k):
        raise MemoryError()

    monkeypatch.setattr(jmh_json, "read_json", no_memory)
    with pytest.raises(DataFormatError, match=r"big\.json: out of memory while reading this"):
        segview.load(path)


def test_csv_output_builds_no_json_entries(tmp_path, monkeypatch, capsys):
    from segview.cli import detect
    from segview.cli.main import main
    path = tmp_path / "s.json"
    path.write_text(json.dumps([[1.0] * 20 + [5.0] * 20, [2.0] * 40]))

    def forbidden(row):
        raise AssertionError("a JSON entry was built for CSV output")

    monkeypatch.setattr(detect, "json_entry", forbidden)
    assert main(["detect", "-m", "binseg", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("series_id,method") and "s/fork1" in out


_UNDER_LIMIT = textwrap.dedent("""
    import json, resource, sys
    from segview.cli.main import main
    import segview.cli.detect, segview.core.io, numpy  # what the command imports, before the limit
    with open("/proc/self/status") as fh:
        vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
    budget = vm + int(sys.argv[2]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (budget, budget))
    sys.exit(main(["detect", "-m", "zero", sys.argv[1]]))
""")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
def test_detect_under_a_memory_limit_says_out_of_memory_and_names_the_file(tmp_path):
    """A subprocess with an address-space limit of what its imports take plus 60 MB: a file of
    400,000 forks (its parsed JSON alone ~40 MB, its series ~140 MB) does not fit."""
    path = _forks(tmp_path / "many.json", 400_000)
    proc = subprocess.run([sys.executable, "-c", _UNDER_LIMIT, str(path), "60"],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1",
                               "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})
    err = proc.stderr
    assert "Traceback" not in err and "MemoryError" not in err, err[-800:]
    assert "bug in segview" not in err
    assert proc.returncode == 2, (proc.returncode, err[-800:])
    assert "many.json" in err and "out of memory while" in err, err[-800:]
