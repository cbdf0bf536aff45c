"""Settings round trips in a temporary QSettings location, recent files, drag-and-drop."""
from __future__ import annotations

import json

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from segview.gui.settings import Settings

from . import fakes


def test_settings_live_in_the_temporary_location(isolated_settings):
    s = Settings()
    s.set_last_folder("/data")
    s.sync()
    assert str(s.q.fileName()).startswith(str(isolated_settings))


def test_params_round_trip_drops_unknown_and_bad_values():
    s = Settings()
    spec = fakes.FAKE_CP
    s.set_params(spec, spec.coerce({"every": 250}))
    assert s.params(spec)["every"] == 250
    s.q.setValue(f"params/{spec.name}", json.dumps({"every": 300, "gone": 1}))
    assert s.params(spec) == spec.coerce({"every": 300})  # unknown key dropped, value kept
    s.q.setValue(f"params/{spec.name}", json.dumps({"every": -5}))
    assert s.params(spec) == spec.defaults()  # out of range: faithful defaults
    s.set_params(spec, spec.defaults())
    assert s.q.value(f"params/{spec.name}") is None  # defaults are not stored


def test_recent_files_are_most_recent_first_and_bounded():
    s = Settings()
    for i in range(15):
        s.add_recent(f"/p{i}")
    s.add_recent("/p3")
    recent = s.recent_files()
    assert recent[0] == "/p3" and len(recent) == 10 and recent.count("/p3") == 1


def test_drop_opens_files_and_updates_recent(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_CP)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(sample / "s0086.json"))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(win.overlay_updated, timeout=5000):
        win.dropEvent(event)
    assert [s.id for s in win.series] == ["s0086"]
    assert win.labels["s0086"].jagt_index == 399  # labels.csv beside the file
    assert win.series_plot.reference.value() == 399
    assert Settings().recent_files()[0].endswith("s0086.json")
    assert [a.text() for a in win.recent_menu.actions()][0].endswith("s0086.json")


def test_bad_path_is_a_message_not_a_crash(qtbot, make_window, tmp_path):
    win = make_window(fakes.FAKE_CP)
    messages = []
    win.message_posted.connect(messages.append)
    assert not win.open_paths([str(tmp_path / "missing.json")])
    assert messages and "missing.json" in messages[-1]
