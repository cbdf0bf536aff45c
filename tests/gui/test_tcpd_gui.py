"""TCPD data sets in the explorer (issue 29, small GUI items): a file with missing values is
reported in the explorer's own words (its File > Missing values menu, not a command-line flag or a
library argument) and opens once a rule is chosen there; the overview strip under the plot labels
its x axis with the data set's dates, as the plot above it does."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import fakes

YEARS = [str(1871 + i) for i in range(40)]


def _tcpd(path: Path, values: list[float | None], name: str = "gappy") -> Path:
    """A small TCPD data set file (yearly ``time.raw``)."""
    n = len(values)
    path.write_text(json.dumps({
        "name": name, "longname": name, "n_obs": n, "n_dim": 1,
        "time": {"type": "string", "format": "%Y", "index": list(range(n)), "raw": YEARS[:n]},
        "series": [{"label": "V1", "type": "float", "raw": values}]}))
    return path


@pytest.fixture
def gappy(tmp_path) -> Path:
    values: list[float | None] = [float(i % 7) for i in range(40)]
    values[8] = values[9] = None
    return _tcpd(tmp_path / "gappy.json", values)


def _messages(win) -> list[str]:
    return [win.messages.item(i).text() for i in range(win.messages.count())]


def test_missing_values_message_names_the_menu_that_fills_them(qtbot, make_window, gappy):
    win = make_window(fakes.FAKE_CP)
    assert not win.open_paths([str(gappy)], background=False)
    said = _messages(win)[-1]
    assert said.startswith("Cannot open: ") and "gappy.json" in said and "index 8" in said
    assert "File > Missing values" in said
    assert "--fill-missing" not in said and "fill_missing" not in said  # not the GUI's options
    # the menu the message names: its action sets the rule, and the file opens with it
    menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&File")
    sub = next(a.menu() for a in menu.actions()
               if a.menu() is not None and "Missing values" in a.text())
    fill = next(a for a in sub.actions() if a.text().replace("&", "") == "Fill linearly")
    assert not fill.isChecked()
    fill.trigger()
    assert win.fill_missing == "linear" and fill.isChecked()
    with qtbot.waitSignal(win.series_shown, timeout=10000):
        assert win.open_paths([str(gappy)], background=False)
    assert win.current.metadata["filled"] == {"rule": "linear", "indices": {"V1": [8, 9]}}
    win.fill_missing = None  # segview gui without --fill-missing: the menu follows
    assert next(a for a in sub.actions() if a.data() is None).isChecked()


def test_missing_values_in_a_folder_or_a_background_load_name_the_menu(qtbot, make_window,
                                                                       gappy, tmp_path):
    _tcpd(tmp_path / "complete.json", [float(i % 5) for i in range(30)], name="complete")
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.loading.done, timeout=20000):
        assert win.open_paths([str(tmp_path)], background=True)
    assert [s.id for s in win.series] == ["complete"]
    skipped = [m for m in _messages(win) if m.startswith("Skipped ")]
    assert len(skipped) == 1 and "gappy.json" in skipped[0]
    assert "File > Missing values" in skipped[0] and "fill_missing" not in skipped[0]
    with qtbot.waitSignal(win.loading.done, timeout=20000):
        assert win.open_paths([str(gappy)], background=True)
    said = _messages(win)[-1]
    assert said.startswith("Cannot open: ") and "File > Missing values" in said
    assert "fill_missing" not in said


def test_the_overview_strip_shows_the_dates_the_plot_shows(qtbot, make_window, tmp_path):
    """nile-like data: years in ``time.raw``; the strip's x axis said 0, 10, 20 under a plot that
    said 1871, 1881, 1891."""
    path = _tcpd(tmp_path / "years.json", [float(i % 9) for i in range(40)], name="years")
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.series_shown, timeout=10000):
        assert win.open_paths([str(path)], background=False)
    main = win.main_plot.getAxis("bottom")
    strip = win.overview.plot.getAxis("bottom")
    assert main.tickStrings([0.0, 10.0, 20.0], 1.0, 10.0) == ["1871", "1881", "1891"]
    assert strip.tickStrings([0.0, 10.0, 20.0], 1.0, 10.0) == ["1871", "1881", "1891"]
    # a series without dates: both show numbers again
    csv = tmp_path / "plain" / "plain.csv"
    csv.parent.mkdir()
    csv.write_text("\n".join(str(float(i % 4)) for i in range(50)) + "\n")
    with qtbot.waitSignal(win.series_shown, timeout=10000):
        assert win.open_paths([str(csv.parent)], background=False)
    assert strip.tickStrings([10.0], 1.0, 10.0) == main.tickStrings([10.0], 1.0, 10.0) == ["10"]


@pytest.mark.shared
def test_nile_overview_shows_years(qtbot, make_window, tcpd_copy):
    win = make_window(fakes.FAKE_CP)
    assert win.open_paths([str(tcpd_copy)])
    win.show_series("nile")
    raw = json.loads((tcpd_copy / "datasets" / "nile.json").read_text())["time"]["raw"]
    strip = win.overview.plot.getAxis("bottom")
    assert strip.tickStrings([0.0, 50.0], 1.0, 50.0) == [str(raw[0]), str(raw[50])]
