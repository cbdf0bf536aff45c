"""Hostile variants of the harness-a fixtures (JMH log, Krun, warmup_stats CSV, Renaissance,
BenchmarkDotNet): cut anywhere, lines dropped or repeated, characters replaced. Each load ends in
series that keep segview's promises (finite float64 values, warm-up within the values) or in a named
DataFormatError; never another exception. Named warnings (a crashed execution...) are allowed."""
from __future__ import annotations

import bz2
from pathlib import Path
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import segview
from segview.core.benchmark import warmup_count
from segview.core.errors import DataFormatError, DataFormatWarning

FUZZ = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])
DATA = Path(__file__).resolve().parents[1] / "data" / "harness"
TEXT = {"run.log": DATA / "jmh" / "run.log", "w.csv": DATA / "warmup_stats" / "pypy_nbody.csv",
        "r.json": DATA / "renaissance" / "run.json", "r.csv": DATA / "renaissance" / "run.csv",
        "b.json": DATA / "benchmarkdotnet" / "Sorting.SortBench-report-full-compressed.json",
        "b.csv": DATA / "benchmarkdotnet" / "Sorting.SortBench-measurements.csv"}
KRUN = bz2.decompress((DATA / "krun" / "nbody_results.json.bz2").read_bytes()).decode()


def mutate(text: str, data) -> str:  # type: ignore[no-untyped-def]
    kind = data.draw(st.sampled_from(["cut", "drop", "repeat", "replace"]))
    lines = text.splitlines(keepends=True)
    if kind == "cut":
        return text[: data.draw(st.integers(0, len(text)))]
    i = data.draw(st.integers(0, len(lines) - 1))
    if kind == "drop":
        return "".join(lines[:i] + lines[i + 1:])
    if kind == "repeat":
        return "".join(lines[: i + 1] + lines[i:])
    pos = data.draw(st.integers(0, len(text) - 1))
    return text[:pos] + data.draw(st.sampled_from(["x", "-", ",", "\n", "0", "\u2248", '"', "{"])) + \
        text[pos + 1:]


def check(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataFormatWarning)
        try:
            ds = segview.load(path)
        except DataFormatError as err:
            assert path.name in str(err)
            return
    for s in ds:
        assert s.values.dtype == np.float64 and np.all(np.isfinite(s.values)) and len(s) >= 1
        assert 0 <= warmup_count(s) < len(s)  # at least one measured iteration


@FUZZ
@given(name=st.sampled_from(sorted(TEXT)), data=st.data())
def test_fuzz_harness_text_files(tmp_path_factory, name, data):
    path = tmp_path_factory.mktemp("h") / name
    path.write_text(mutate(TEXT[name].read_text(encoding="utf-8"), data), encoding="utf-8")
    check(path)


@FUZZ
@given(data=st.data())
def test_fuzz_krun_files(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("k") / "k.json.bz2"
    raw = bz2.compress(mutate(KRUN, data).encode())
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    path.write_bytes(raw)
    check(path)


def test_non_finite_values_are_named_errors(tmp_path):
    """JMH prints NaN for a score it could not measure; Python's json reads NaN: neither may reach
    a series (a folder load would stop on it)."""
    log = tmp_path / "nan.log"
    log.write_text(TEXT["run.log"].read_text(encoding="utf-8").replace("\nIteration   2: 25.",
                                                                        "\nIteration   2: NaN #", 1))
    bdn = tmp_path / "nan.json"
    bdn.write_text(TEXT["b.json"].read_text().replace('"Nanoseconds":', '"Nanoseconds":NaN,"x":', 1))
    for path in (log, bdn):
        try:
            segview.load(path)
        except DataFormatError as err:
            assert path.name in str(err) and ("NaN" in str(err) or "nan" in str(err))
        else:
            raise AssertionError(f"{path.name} loaded a NaN")
    ds = segview.load(tmp_path)  # the rest of a folder still loads; both are named problems
    assert len(ds.problems) == 2
