"""The explorer's Qt-free model: stale answers are dropped by their key (dataset generation,
series, parameters), never by luck of timing; every change reports the jobs it makes useless."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from segview.core.explorer_model import ExplorerModel
from segview.core.model import Series
from segview.core.params import Params


@dataclass(frozen=True)
class Res:
    params: Params
    value: int = 0


P1 = Params({"level": 0.5})
P2 = Params({"level": 0.25})


def series(*ids):
    return [Series(np.arange(10.0), None, i) for i in ids]


def model():
    m = ExplorerModel({"a": P1, "b": P1}, enabled={"a", "b"})
    cancelled = []
    m.jobs_cancelled.connect(cancelled.extend)
    m.set_dataset(series("s1", "s2"))
    m.select_series("s1")
    return m, cancelled


def test_an_answer_for_the_same_ids_of_the_previous_dataset_is_dropped():
    m, cancelled = model()
    old = m.begin_job("s1", "a")
    m.set_dataset(series("s1", "s2"))  # same ids, another dataset
    assert cancelled == [old]
    m.select_series("s1")
    assert m.finish_job("s1", "a", Res(P1)) is None  # the old job's answer
    assert m.result("s1", "a") is None and dict(m.results) == {}


def test_a_new_job_on_the_same_lane_is_kept_and_old_results_do_not_count():
    m, _ = model()
    m.begin_job("s1", "a")
    token = m.finish_job("s1", "a", Res(P1, 7))
    assert token is not None and token.generation == m.generation
    assert m.result("s1", "a").value == 7
    m.set_dataset(series("s1"))
    assert m.result("s1", "a") is None


def test_a_parameter_change_drops_jobs_and_results_of_the_old_parameters():
    m, cancelled = model()
    m.begin_job("s1", "a")
    m.begin_job("s1", "b")
    m.set_params("a", P2)
    assert [t.method for t in cancelled] == ["a"]
    assert m.finish_job("s1", "a", Res(P1)) is None
    assert m.in_flight("s1", "b")
    m.begin_job("s1", "a")
    assert m.finish_job("s1", "a", Res(P2)) is not None
    m.set_params("a", P1)
    assert m.result("s1", "a") is None  # made with P2


def test_changing_the_series_drops_the_other_series_jobs():
    m, cancelled = model()
    m.begin_job("s1", "a")
    m.select_series("s2")
    assert [t.lane for t in cancelled] == [("s1", "a")]
    assert not m.job_started("s1", "a")


def test_running_status_only_for_a_live_ticked_job_on_the_series_shown():
    m, _ = model()
    changes = []
    m.status_changed.connect(changes.append)
    m.begin_job("s1", "a")
    assert m.job_started("s1", "a") and m.status_of("a") == m.RUNNING
    m.set_enabled("a", False)
    assert m.status_of("a") == "" and not m.in_flight("s1", "a")
    assert not m.job_started("s1", "a")  # a late start of the unticked method's job
    m.set_enabled("a", True)
    assert m.status_of("a") == ""
    assert "a" in changes


def test_escape_cancels_every_job_and_says_cancelled():
    m, cancelled = model()
    m.begin_job("s1", "a")
    m.job_started("s1", "a")
    assert len(m.cancel_jobs()) == 1 and len(cancelled) == 1
    assert m.status_of("a") == "cancelled"
    assert m.finish_job("s1", "a", Res(P1)) is None


def test_batch_items_of_the_previous_dataset_are_dropped():
    m, _ = model()
    m.begin_batch()
    assert m.batch_result("s2", "a", P1, Res(P1))
    m.set_dataset(series("s1", "s2"))
    assert not m.batch_result("s2", "a", P1, Res(P1))
    assert m.result("s2", "a") is None


def test_the_evaluation_overlay_belongs_to_its_dataset():
    m, _ = model()
    seen = []
    m.overlay_changed.connect(lambda: seen.append(m.overlay))
    m.set_overlay({"s1": "truth row"}, {"kb": {"s1": 3}})
    assert m.overlay_for("s1").predictions["kb"]["s1"] == 3
    assert m.overlay_for("s2") is None
    m.set_dataset(series("s1", "s2"))  # another dataset with the same ids
    assert m.overlay_for("s1") is None and seen[-1] is None

