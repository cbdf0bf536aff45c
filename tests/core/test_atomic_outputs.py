"""Issue 30, item 5 (and the permission point of 12): every output file is whole or absent.

A full disk is simulated two ways, neither needing a real full disk:

* in-process, the writer raises ``OSError(ENOSPC)`` after part of the text went out;
* for the real commands, a subprocess runs under ``RLIMIT_FSIZE`` (the kernel refuses every write
  past the limit with EFBIG, as a full disk refuses with ENOSPC): the output must be absent (or
  keep its old content), and the message must name the file.
"""
from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest



@pytest.fixture
def atomic():
    # imported here, not at the top: the command-line tests below must run (and fail) on code
    # without this module too
    from segview.core import atomic as module
    return module

REPO = Path(__file__).resolve().parents[2]


class _FillingFile:
    """A file object that accepts ``room`` characters, then fails as a full disk does."""

    def __init__(self, fh, room: int) -> None:
        self.fh, self.room = fh, room

    def write(self, text):
        if len(text) > self.room:
            self.fh.write(text[:self.room])
            self.fh.flush()
            self.room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(text)
        return self.fh.write(text)

    def __getattr__(self, name):
        return getattr(self.fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()


@pytest.fixture
def disk_full_after(monkeypatch, atomic):
    def arm(room: int) -> None:
        monkeypatch.setattr(atomic, "open", lambda *a, **kw: _FillingFile(open(*a, **kw), room),
                            raising=False)
    return arm


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_full_disk_mid_write_leaves_no_file_and_names_it(tmp_path, disk_full_after, atomic):
    out = tmp_path / "out.csv"
    disk_full_after(10)
    with pytest.raises(atomic.OutputError) as info:
        atomic.write_text(out, "series_id,value\n" + "a,1\n" * 1000)
    assert info.value.path == str(out) and "no space left on device" in str(info.value)
    assert str(out) in str(info.value)
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_full_disk_keeps_the_old_content(tmp_path, disk_full_after, atomic):
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    disk_full_after(3)
    with pytest.raises(atomic.OutputError):
        atomic.write_text(out, "new content\n" * 10)
    assert out.read_text() == "old\n" and _leftovers(tmp_path) == []


def test_an_exception_in_the_writer_removes_the_temporary_file(tmp_path, atomic):
    out = tmp_path / "o.bin"
    with pytest.raises(RuntimeError):
        with atomic.atomic_open(out, "wb") as fh:
            fh.write(b"half")
            raise RuntimeError("writer failed")
    assert not out.exists() and _leftovers(tmp_path) == []


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_written_files_follow_the_umask(tmp_path, mask, atomic):
    old = os.umask(mask)
    try:
        atomic.write_text(tmp_path / "f.csv", "x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f.csv").stat().st_mode) == 0o666 & ~mask


def test_a_replaced_file_keeps_its_permissions(tmp_path, atomic):
    out = tmp_path / "private.csv"
    out.write_text("old\n")
    out.chmod(0o600)
    atomic.write_text(out, "new\n")
    assert out.read_text() == "new\n" and stat.S_IMODE(out.stat().st_mode) == 0o600


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_export_folders_follow_the_umask_like_their_files(tmp_path, mask):
    from segview.core import export as ex
    from segview.core.annotation.session import AnnotationSession
    from segview.core.annotation.store import Store
    from segview.core.model import Series

    s = AnnotationSession.create(Store(tmp_path / "a.sqlite"), "p",
                                 [Series(np.arange(20.0), id="a")])
    old = os.umask(mask)
    try:
        folder = ex.export_session(s, tmp_path / "exp", "csv")
    finally:
        os.umask(old)
    mode = lambda p: stat.S_IMODE(p.stat().st_mode)  # noqa: E731
    assert mode(folder / "metadata.json") == 0o666 & ~mask
    assert mode(folder) == 0o777 & ~mask, "export folder and its files disagree"


# ------------------------------------------------------------------- real commands, disk full

LIMIT = 65536  # bytes a command may write per file before the "disk" is full (SQLite's
# shared-memory file of 32 KiB must fit)


def _limited(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run ``segview ARGV`` with every file write past LIMIT bytes refused (EFBIG)."""
    code = ("import resource, signal, sys\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            f"resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT}))\n"
            "from segview.cli.main import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """A session with 700 judged series of long names (its judgments and ground truth exceed
    LIMIT)."""
    from segview.core.annotation.session import AnnotationSession
    from segview.core.annotation.store import Store
    from segview.core.model import Series

    tmp = tmp_path_factory.mktemp("judged")
    rng = np.random.default_rng(3)
    series = [Series(rng.normal(size=60), id=f"{'a-rather-long-series-name-' * 3}{k:04d}")
              for k in range(700)]
    with Store(str(tmp / "s.sqlite")) as st:
        s = AnnotationSession.create(st, "s", series)
        for name in ("ann", "bob"):
            j = s.judge(name, create=True)
            s.record_many([(j, x.id, {"steady": True, "onset": 5 + k % 40})
                           for k, x in enumerate(series)])
    data = tmp / "data"
    data.mkdir()
    (data / "many.csv").write_text("series_id,index,value\n" + "".join(
        f"long-series-name-{k:04d},{i},{v!r}\n" for k in range(3000)
        for i, v in enumerate(rng.normal(size=12).tolist())))
    return tmp


def _check_absent(proc: subprocess.CompletedProcess, out: Path) -> None:
    assert proc.returncode in (1, 2), proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not out.exists(), f"{out.name}: {out.stat().st_size} bytes left under the final name"
    assert str(out) in proc.stderr, f"the message does not name the file: {proc.stderr!r}"
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")] == []


@pytest.mark.parametrize("command", [
    ["session", "export-judgments", "s", "--out", "OUT", "--db", "DB"],
    ["session", "aggregate", "s", "--out", "OUT", "--db", "DB"],
    ["detect", "DATA", "-m", "zero", "-o", "OUT"],
    ["detect", "DATA", "-m", "zero", "--format", "json", "-o", "OUT"],
], ids=["export-judgments", "session-aggregate", "detect-csv", "detect-json"])
def test_commands_on_a_full_disk_leave_no_cut_file(judged, tmp_path, command):
    out = tmp_path / "out.csv"
    argv = [a.replace("OUT", str(out)).replace("DB", str(judged / "s.sqlite"))
            .replace("DATA", str(judged / "data" / "many.csv")) for a in command]
    _check_absent(_limited(argv, tmp_path), out)


def test_aggregate_on_a_full_disk_keeps_the_old_file(judged, tmp_path):
    from segview.cli.main import main

    judgments = tmp_path / "j.csv"
    assert main(["session", "export-judgments", "s", "--out", str(judgments),
                 "--db", str(judged / "s.sqlite")]) == 0
    out = tmp_path / "gt.csv"
    out.write_text("old\n")
    proc = _limited(["aggregate", str(judgments), "--out", str(out), "--force"], tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert str(out) in proc.stderr
    assert out.read_text() == "old\n"


def test_session_export_on_a_full_disk_names_the_folder(judged, tmp_path):
    target = tmp_path / "exp"
    proc = _limited(["session", "export", "s", "--out", str(target), "--format", "json",
                     "--db", str(judged / "s.sqlite")], tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert str(target) in proc.stderr
    assert not target.exists() and _leftovers(tmp_path) == []
