"""Issue 30, item 5 in the explorer: an export that cannot be written (a full disk, a file where
its folder should be) is a message naming the file, leaves nothing under its name, and is never
reported as a bug."""
from __future__ import annotations

import errno
import os

import pytest

from . import fakes
from .test_main_window import open_sample


@pytest.fixture
def window(qtbot, make_window, sample):
    win = make_window(*fakes.FAST)
    open_sample(qtbot, win, sample, ["fake_onset", "fake_cp"])
    return win


def _messages(win) -> list[str]:
    return [win.messages.item(k).text() for k in range(win.messages.count())]


def test_a_detections_export_on_a_full_disk_is_a_message(window, tmp_path, monkeypatch):
    from segview.core import atomic

    def full(*a, **kw):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic, "open", full, raising=False)
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "current.csv"
    assert window.export_csv(str(out), all_series=False) is False
    assert os.listdir(folder) == []
    last = _messages(window)[-1]
    assert str(out) in last and "no space left" in last and "bug" not in last


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_a_plot_export_into_a_missing_folder_is_a_message(window, tmp_path, suffix):
    blocker = tmp_path / "out"
    blocker.write_text("x")
    out = blocker / f"plot.{suffix}"  # its "folder" is a file
    window.export_plot(str(out))
    last = _messages(window)[-1]
    assert str(out) in last and "not saved" in last and "bug" not in last
    assert blocker.read_text() == "x"
