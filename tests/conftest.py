"""Shared fixtures. Qt runs offscreen in tests; ``shared_dir`` locates ../shared beside the repo."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Never read or fill the user's cache folder (stored Monte Carlo values would let a test pass
# without computing); worker processes inherit this.
os.environ["SEGVIEW_CACHE_DIR"] = tempfile.mkdtemp(prefix="segview-test-cache-")
# Column mappings remembered per folder go to a throw-away config folder, never the user's.
os.environ["SEGVIEW_CONFIG_DIR"] = tempfile.mkdtemp(prefix="segview-test-config-")

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO / ".." / "shared").resolve()
JMH = SHARED / "data" / "jmh"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``shared/`` folder beside the repository; tests using it skip cleanly when it is absent."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present beside the repository")
    return SHARED


@pytest.fixture(scope="session")
def jmh_dir(shared_dir: Path) -> Path:
    path = shared_dir / "data" / "jmh"
    if not (path / "labels.csv").is_file():
        pytest.skip("../shared/data/jmh is not present")
    return path


@pytest.fixture(scope="session")
def tcpd_dir(shared_dir: Path) -> Path:
    """``shared/data/tcpd`` (data sets, annotations, TCPDBench's published results)."""
    path = shared_dir / "data" / "tcpd"
    if not (path / "tcpdbench_default_results.json").is_file():
        pytest.skip("../shared/data/tcpd is not present")
    return path


@pytest.fixture(scope="session")
def jmh_labels(jmh_dir: Path):
    from segview.core.io.labels_csv import read_labels
    return read_labels(jmh_dir / "labels.csv")


@pytest.fixture(scope="session")
def jmh_series(jmh_dir: Path):
    """All 350 JMH series keyed by id (loaded once per test session)."""
    import segview
    return {s.id: s for s in segview.load(jmh_dir / "series")}


@pytest.fixture
def tcpd_copy(shared_dir: Path, tmp_path: Path) -> Path:
    """A TCPD-layout folder with run_log (two dimensions) and nile plus TCPD's annotations.json."""
    import shutil

    src = shared_dir / "data" / "tcpd"
    if not (src / "annotations.json").is_file():
        pytest.skip("../shared/data/tcpd is not present")
    (tmp_path / "datasets").mkdir()
    for name in ("run_log", "nile"):
        shutil.copy(src / "datasets" / f"{name}.json", tmp_path / "datasets")
    shutil.copy(src / "annotations.json", tmp_path)
    return tmp_path
