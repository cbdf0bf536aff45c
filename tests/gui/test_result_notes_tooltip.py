"""The Methods list tells what the shown series' result rests on: hovering a method gives its
result's notes (e.g. that cpnp's default changed with its version 2), not only its description."""
from __future__ import annotations

from segview.core import registry

from .test_main_window import open_sample


def _tooltip(win, name):
    for i in range(win.method_list.count()):
        item = win.method_list.item(i)
        if item.data(256) == name:
            return item.toolTip()
    raise AssertionError(name)


def test_method_tooltip_gives_the_results_notes(qtbot, make_window, sample):
    win = make_window(registry.get("cpnp"), registry.get("zero"))
    open_sample(qtbot, win, sample, ["cpnp", "zero"])
    res = win.results[(win.current.id, "cpnp")]
    assert any("version 2's default" in n for n in res.notes)  # what the tooltip must carry
    tip = _tooltip(win, "cpnp")
    for note in res.notes:
        assert f"\u2022 {note}" in tip, tip
    assert tip.index("version 2's default") < tip.index(registry.get("cpnp").description[:30])
