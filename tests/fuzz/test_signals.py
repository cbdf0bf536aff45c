"""Issue 30, item 6: SIGTERM cleans up like Ctrl-C.

* ``segview detect -o OUT`` keeps ``OUT.partial.csv`` on SIGTERM and stops its worker pool without
  multiprocessing's "leaked semaphore objects" warning;
* ``segview session export`` leaves no ``.NAME.partial-*`` folder on SIGTERM, and sweeps the ones
  a killed (SIGKILL) process left behind at the next export.

The commands are real subprocesses; the tests wait on file-system conditions (workers started,
the hidden export folder appeared) with bounded polling, never a blind sleep.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from segview.core.model import Series
from tests.fuzz.test_processes import _until, _workers

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _segview(*argv: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "segview", *argv], env=ENV,
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def _finish(proc: subprocess.Popen) -> str:
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    return err.decode()


def _descendants(pid: int) -> list[int]:
    from tests.fuzz.test_processes import _descendants as all_below
    return all_below(pid)


@pytest.mark.parametrize("stage", ["starting", "running"])
def test_sigterm_keeps_detects_partial_csv_and_leaks_no_semaphores(tmp_path, stage):
    rng = np.random.default_rng(0)
    data = tmp_path / "data"
    data.mkdir()
    for k in range(40):
        y = np.r_[rng.normal(0, 1, 1500), rng.normal(3, 1, 1500)]
        (data / f"s{k:02d}.json").write_text(json.dumps([y.tolist()]))
    out = tmp_path / "o.csv"
    proc = _segview("detect", str(data), "-m", "cpssd,autoparm,fisher", "--jobs", "2",
                    "--out", str(out))
    try:
        if stage == "starting":  # the first process below it: workers are being started
            assert _until(lambda: _descendants(proc.pid), 60), "no process ever started"
        else:
            assert _until(lambda: len(_workers(proc.pid)) >= 2, 60), "workers never started"
        os.kill(proc.pid, signal.SIGTERM)  # the parent only, as `kill PID` does
    finally:
        err = _finish(proc)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert not out.exists()
    partial = tmp_path / "o.partial.csv"
    assert partial.is_file(), err
    assert partial.read_text().startswith("series_id,method,steady_index,change_points,runtime_ms")
    assert "partial results" in err and str(partial) in err
    assert "leaked semaphore" not in err and "Traceback" not in err, err


@pytest.fixture
def big_session(tmp_path):
    """A session whose TCPD export writes a few thousand files (long enough to be caught)."""
    from segview.core.annotation.session import AnnotationSession
    from segview.core.annotation.store import Store

    db = tmp_path / "s.sqlite"
    rng = np.random.default_rng(1)
    with Store(str(db)) as st:
        AnnotationSession.create(st, "big", [Series(rng.normal(size=300), id=f"s{k:04d}")
                                             for k in range(3000)])
    return db


def _hidden(folder: Path, name: str) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.startswith(f".{name}.partial-")]


def test_sigterm_during_session_export_leaves_no_hidden_folder(tmp_path, big_session):
    target = tmp_path / "exp"
    proc = _segview("session", "export", "big", "--out", str(target), "--format", "tcpd",
                    "--db", str(big_session))
    try:
        # mid-export: the hidden folder exists and already holds series files
        assert _until(lambda: any((p / "datasets").is_dir() for p in _hidden(tmp_path, "exp")),
                      60), "the export never started"
        os.kill(proc.pid, signal.SIGTERM)
    finally:
        err = _finish(proc)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert _hidden(tmp_path, "exp") == [], "SIGTERM left the hidden export folder"
    assert not target.exists()
    assert "Traceback" not in err, err


def test_next_export_sweeps_folders_of_killed_exports(tmp_path, big_session):
    dead_pid = 4194304 + 17  # above Linux's largest pid_max: no such process
    stale = tmp_path / f".exp.partial-{dead_pid}-0badf00d"
    (stale / "datasets").mkdir(parents=True)
    (stale / "datasets" / "x.json").write_text("[]")
    stale_file = tmp_path / f".other.csv.tmp-{dead_pid}-0badf00d.csv"
    stale_file.write_text("cut")
    alive = tmp_path / f".exp.partial-{os.getppid()}-0badf00d"  # a running process's: kept
    alive.mkdir()
    from segview.cli.main import main

    assert main(["session", "export", "big", "--out", str(tmp_path / "exp"), "--format", "json",
                 "--db", str(big_session)]) == 0
    assert not stale.exists(), "the killed export's hidden folder is still there"
    assert alive.exists()
    assert main(["session", "export-judgments", "big", "--out", str(tmp_path / "other.csv"),
                 "--db", str(big_session)]) == 0
    assert not stale_file.exists(), "the killed writer's temporary file is still there"
    assert (tmp_path / "exp" / "metadata.json").is_file()
