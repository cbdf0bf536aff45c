"""The explorer model's warm-up analyses (issue 29): stored with the dataset they were asked on,
forgotten with it, and an answer of a previous dataset is dropped by its token, never shown on a
benchmark of the same name in the next one."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core.explorer_model import ExplorerModel, WarmupToken
from segview.core.model import Series

MIXED = ("mixed", "barrett", 0.001, "absolute")  # (benchmark, rule, delta, delta mode)
KB = ("mixed", "kbkssd", 0.001, "absolute")
WARMED = ("warmed", "barrett", 0.001, "absolute")


def model():
    m = ExplorerModel()
    added: list = []
    cancelled: list[WarmupToken] = []
    m.warmup_added.connect(lambda key, result: added.append((key, result)))
    m.warmup_cancelled.connect(cancelled.append)
    m.set_dataset([Series(np.arange(10.0), None, "mixed#0")])
    return m, added, cancelled


def test_an_answer_is_stored_for_its_key_and_reported():
    m, added, _ = model()
    assert m.select_warmup(MIXED)
    token = m.begin_warmup()
    assert token == WarmupToken(m.generation, MIXED) and m.warmup_job == token
    assert m.finish_warmup(token, "A")
    assert added == [(MIXED, "A")]
    assert m.warmup_result(MIXED) == "A" and dict(m.warmup_results) == {MIXED: "A"}
    assert m.warmup_job is None and m.warmup_key == MIXED


def test_a_new_dataset_forgets_the_analyses_and_drops_a_late_answer():
    m, added, cancelled = model()
    m.select_warmup(MIXED)
    m.finish_warmup(m.begin_warmup(), "A")
    m.select_warmup(KB)
    late = m.begin_warmup()
    m.set_dataset([Series(np.arange(10.0), None, "mixed#0")])  # same ids, another dataset
    assert cancelled == [late]  # the view cancels the analysis in flight
    assert m.warmup_key is None and m.warmup_job is None
    assert dict(m.warmup_results) == {} and m.warmup_result(MIXED) is None
    # the same benchmark, rule and delta in the new dataset: asked again, not served stale
    assert m.select_warmup(KB)
    fresh = m.begin_warmup()
    assert fresh != late and fresh.key == late.key
    assert not m.finish_warmup(late, "A-late")  # the previous dataset's answer
    assert not m.fail_warmup(late)
    assert m.warmup_result(KB) is None and added == [(MIXED, "A")]
    assert m.warmup_job == fresh
    assert m.finish_warmup(fresh, "B")
    assert m.warmup_result(KB) == "B" and added[-1] == (KB, "B")


def test_the_same_key_under_way_or_failed_is_not_asked_again():
    m, _, cancelled = model()
    assert m.select_warmup(MIXED)
    token = m.begin_warmup()
    assert not m.select_warmup(MIXED)  # another execution of the same benchmark
    assert m.warmup_job == token and cancelled == []
    assert m.fail_warmup(token)
    assert m.warmup_job is None
    assert not m.select_warmup(MIXED)  # failed: not asked again at once
    assert m.select_warmup(None) and m.select_warmup(MIXED)  # a new rule/delta: asked again


def test_another_key_drops_the_analysis_in_flight_but_keeps_a_stored_one():
    m, added, cancelled = model()
    m.select_warmup(MIXED)
    m.finish_warmup(m.begin_warmup(), "A")
    m.select_warmup(WARMED)
    token = m.begin_warmup()
    assert m.select_warmup(MIXED)  # back: stored, shown at once
    assert cancelled == [token] and m.warmup_job is None
    assert m.warmup_result(MIXED) == "A"
    assert m.select_warmup(MIXED)  # stored: the view may show it again
    # the dropped analysis' answer, of this dataset, is still a true analysis of its key
    assert m.finish_warmup(token, "W")
    assert m.warmup_result(WARMED) == "W" and m.warmup_key == MIXED
    assert added[-1] == (WARMED, "W")


def test_only_the_newest_analyses_are_kept():
    m, _, _ = model()
    keys = [(f"b{i}", "barrett", 0.001, "absolute") for i in range(m.MAX_WARMUPS + 3)]
    for i, key in enumerate(keys):
        m.select_warmup(key)
        m.finish_warmup(m.begin_warmup(), i)
    assert list(m.warmup_results) == keys[3:]
    assert m.warmup_result(keys[0]) is None and m.warmup_result(keys[-1]) == len(keys) - 1


def test_begin_without_a_key_is_an_error():
    m, _, _ = model()
    with pytest.raises(ValueError, match="select_warmup"):
        m.begin_warmup()
