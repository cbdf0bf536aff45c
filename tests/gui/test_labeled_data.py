"""The explorer with labeled data (issue 13): a TCPD folder shows its annotators' change points and
dates on the x axis; a multivariate series is drawn as stacked dimensions; an export folder opens
with its labels (and a steady label without onset is named so)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import segview
from segview.core import export as ex
from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store

from . import fakes


@pytest.mark.shared
def test_tcpd_folder_shows_annotators_dates_and_stacked_dimensions(qtbot, make_window, tcpd_copy):
    win = make_window(fakes.FAKE_CP)
    assert win.open_paths([str(tcpd_copy)])
    want = json.loads((tcpd_copy / "annotations.json").read_text())
    win.show_series("nile")
    lines = win.series_plot.annotations.lines
    assert len(lines) == sum(len(v) for v in want["nile"].values())
    assert sorted(line.value() for line in lines) == sorted(
        float(c) for v in want["nile"].values() for c in v)
    axis = win.main_plot.getAxis("bottom")
    raw = json.loads((tcpd_copy / "datasets" / "nile.json").read_text())["time"]["raw"]
    assert axis.tickStrings([0.0, 10.0], 1.0, 10.0) == [str(raw[0]), str(raw[10])]
    win._relayout()  # rows laid out again (a track appears): the visible bottom axis keeps dates
    lanes_axis = win.lanes.plot.getAxis("bottom")
    assert lanes_axis.tickStrings([10.0], 1.0, 10.0) == [str(raw[10])]
    win.show_series("run_log")
    assert len(win.series_plot.stack.extra) == 1  # Pace in the main curve, Distance stacked below
    ticks = win.main_plot.getAxis("left")._tickLevels
    assert [name for _, name in ticks[0]] == ["Pace", "Distance"]
    assert len(win.series_plot.annotations.lines) == sum(len(v) for v in want["run_log"].values())
    assert axis.tickStrings([3.0], 1.0, 50.0) == [raw_run_date(tcpd_copy, 3)]
    assert "n=376" in win.windowTitle()


def raw_run_date(folder, i):
    raw = json.loads((folder / "datasets" / "run_log.json").read_text())["time"]["raw"][i]
    return raw.split(" ")[1]  # run_log lasts one day: its ticks show the time of day


@pytest.mark.parametrize("fmt", ex.FORMATS)
def test_export_folder_opens_with_labels_and_honest_title(qtbot, make_window, tmp_path, fmt):
    rng = np.random.default_rng(0)
    series = [segview.Series(rng.normal(size=80), id=f"s{k}") for k in range(2)]
    s = AnnotationSession.create(Store(tmp_path / "a.sqlite"), "t", series)
    a, b = s.judge("a", create=True), s.judge("b", create=True)
    s.record(a, "s0", steady=True)  # steady, no onset given
    s.record(b, "s0", steady=True)
    s.record(a, "s1", steady=False)
    s.record(b, "s1", steady=False)
    folder = ex.export_session(s, tmp_path / "exp", fmt)
    win = make_window(fakes.FAKE_CP)
    assert win.open_paths([str(folder)])
    assert set(win.labels) == {"s0", "s1"}
    assert [x.content_hash for x in win.series] == [x.content_hash for x in series]
    win.show_series("s0")
    assert "None" not in win.windowTitle() and "steady (no onset)" in win.windowTitle()
    win.show_series("s1")
    assert "never steady" in win.windowTitle()


@pytest.mark.shared
def test_gap_filling_rule_is_explicit(qtbot, make_window, shared_dir, tmp_path):
    src = shared_dir / "data" / "tcpd" / "datasets" / "uk_coal_employ.json"
    if not src.is_file():
        pytest.skip("shared TCPD data absent")
    folder = tmp_path / "gaps"
    folder.mkdir()
    (folder / src.name).write_bytes(src.read_bytes())
    win = make_window(fakes.FAKE_CP)
    assert not win.open_paths([str(folder)])  # reported, nothing loaded
    win.fill_missing = "linear"  # segview gui --fill-missing linear
    assert win.open_paths([str(folder)])
    assert win.current.metadata["filled"]["rule"] == "linear"
