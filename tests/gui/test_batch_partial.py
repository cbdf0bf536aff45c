"""Run on all series: an ETA in the progress text, and a cancelled export keeps what finished."""
from __future__ import annotations

import csv

from . import fakes
from .test_main_window import open_sample


def test_cancelled_export_of_all_series_writes_a_partial_file(qtbot, make_window, sample,
                                                               tmp_path):
    win = make_window(fakes.FAKE_CP, fakes.FAKE_SLOW)
    open_sample(qtbot, win, sample, ["fake_cp", "fake_slow"])
    done, texts = [], []
    win.runner.batch_item.connect(lambda sid, det, p, res: done.append((sid, det)))
    win.runner.batch_progress.connect(lambda f, text: texts.append(text))
    out = tmp_path / "all.csv"
    assert not win.export_csv(str(out), all_series=True)     # starts the batch
    qtbot.waitUntil(lambda: len(done) >= 4, timeout=20000)
    with qtbot.waitSignal(win.runner.batch_finished, timeout=10000) as fin:
        win.cancel_jobs()
    assert fin.args == [True]
    assert not out.exists()
    rows = list(csv.DictReader((tmp_path / "all.partial.csv").open()))
    total = len(win.series) * 2
    assert len(done) <= len(rows) < total      # finished runs only (current series were computed)
    assert any("ETA" in t for t in texts)
