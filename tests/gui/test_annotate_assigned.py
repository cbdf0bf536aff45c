"""The annotator with an assignment (issue 13): a judge meets only their k-assigned series, can go
to one by id, and is told when an id is not theirs."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store
from segview.core.model import Series

pytest.importorskip("pytestqt")

from segview.gui.annotate.window import AnnotationWindow  # noqa: E402


def test_assigned_judge_sees_their_series_and_goes_to_one_by_id(qtbot, tmp_path):
    db = tmp_path / "a.sqlite"
    rng = np.random.default_rng(1)
    with Store(db) as store:
        s = AnnotationSession.create(store, "pilot", [Series(rng.normal(size=60), id=f"s{k:02d}")
                                                      for k in range(10)])
        for name in "abcde":
            s.judge(name, create=True)
        got = s.assign(3, seed=5)
    w = AnnotationWindow()
    qtbot.addWidget(w)
    w.show()
    assert w.open_session(str(db), "pilot", "a")
    assert sorted(it.series_id for it in w.order) == sorted(got["a"])
    target = got["a"][-1]
    w.go_to_series(target)
    assert w.series_id == target
    other = next(f"s{k:02d}" for k in range(10) if f"s{k:02d}" not in got["a"])
    w.go_to_series(other)
    assert w.series_id == target and "not one of your 6 series" in w.statusBar().currentMessage()
    w.close()


def test_multivariate_series_is_annotated_with_stacked_dimensions(qtbot, tmp_path):
    db = tmp_path / "a.sqlite"
    rng = np.random.default_rng(2)
    run = Series(rng.normal(size=(80, 2)), id="run_log", dims=("Pace", "Distance"))
    with Store(db) as store:
        AnnotationSession.create(store, "mv", [run], protocol="change_points")
    w = AnnotationWindow()
    qtbot.addWidget(w)
    w.show()
    assert w.open_session(str(db), "mv", "a")
    assert len(w.dims.extra) == 1
    assert [name for _, name in w.plot.plotItem.getAxis("left")._tickLevels[0]] == [
        "Pace", "Distance"]
    assert w.plot.readout(3) == f"sample 3  Pace {run.values[3, 0]:.6g}  Distance {run.values[3, 1]:.6g}"
    w.close()
