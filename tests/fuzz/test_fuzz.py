"""The fuzz suite (issue 17): generated hostile input through the loaders, every detector, every
parameter and the CLI. Each case ends in a result that keeps segview's promises or in one of its
named errors; never another exception, a hang or a crash.

Hypothesis runs derandomized (the same examples on every run: CI is reproducible) with a bounded
number of examples per test.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import segview
from segview.cli.main import main
from segview.core.errors import DataFormatError, InputError, ParameterError

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])

EXTREMES = [0.0, -0.0, 5e-324, -5e-324, 1e-310, 1e-200, 1e-150, 1.0, -1.0, 1e150, 1e200, 1e305,
            1.7976931348623157e308, -1.7976931348623157e308, math.nan, math.inf, -math.inf]
numbers = st.one_of(st.sampled_from(EXTREMES), st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(-(10**30), 10**30))
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers.filter(lambda v: not (isinstance(v, float)
                                                                       and not math.isfinite(v))),
              st.text(max_size=8), st.integers(-(10**400), 10**400)),
    lambda children: st.one_of(st.lists(children, max_size=6),
                               st.dictionaries(st.sampled_from(
                                   ["name", "n_obs", "n_dim", "time", "series", "raw", "index",
                                    "label", "primaryMetric", "rawData", "benchmark", "x", "values"]),
                                   children, max_size=5)),
    max_leaves=30)


def _check_dataset(ds) -> None:
    for s in ds:
        assert s.values.dtype == np.float64 and np.all(np.isfinite(s.values))
        assert len(s) >= 1 and isinstance(s.id, str)


def _load_or_named_error(path: Path) -> None:
    try:
        _check_dataset(segview.load(path))
    except DataFormatError as err:
        assert path.name in str(err)


# -- loaders ----------------------------------------------------------------------------------

@FUZZ
@given(value=json_values, name=st.sampled_from(["data.json", "run.json"]))
def test_fuzz_json_files(tmp_path_factory, value, name):
    path = tmp_path_factory.mktemp("j") / name
    path.write_text(json.dumps(value))
    _load_or_named_error(path)


@FUZZ
@given(series=st.lists(st.lists(numbers, min_size=0, max_size=8), min_size=0, max_size=3))
def test_fuzz_jmh_fork_lists(tmp_path_factory, series):
    path = tmp_path_factory.mktemp("f") / "forks.json"
    path.write_text(json.dumps(series, allow_nan=True))
    _load_or_named_error(path)


@FUZZ
@given(rows=st.lists(st.lists(st.one_of(st.sampled_from(["", "x", "nan", "inf", "1e400", "-1",
                                                          "1,5", '"', "series_id", "index",
                                                          "value", "=1+1", "\t"]),
                                         numbers.map(repr)), min_size=0, max_size=5),
                      min_size=0, max_size=8),
       sep=st.sampled_from([",", ";", "\t"]))
def test_fuzz_csv_files(tmp_path_factory, rows, sep):
    path = tmp_path_factory.mktemp("c") / "table.csv"
    path.write_text("\n".join(sep.join(r) for r in rows))
    _load_or_named_error(path)


@FUZZ
@given(lines=st.lists(st.one_of(st.sampled_from(["PARAMETER p", "POINTS 1 2 3", "POINTS ( 1 2 )",
                                                 "REGION r", "METRIC time", "DATA 1 2 3",
                                                 "DATA nan", "DATA 1e400", "EXPERIMENT", ""]),
                                st.text(max_size=20)), max_size=10))
def test_fuzz_extrap_text(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("e") / "exp.txt"
    path.write_text("\n".join(lines))
    _load_or_named_error(path)


@FUZZ
@given(raw=st.binary(max_size=300), ext=st.sampled_from([".json", ".csv", ".txt", ".dat"]))
def test_fuzz_random_bytes(tmp_path_factory, raw, ext):
    path = tmp_path_factory.mktemp("b") / f"blob{ext}"
    path.write_bytes(raw)
    _load_or_named_error(path)


# -- detectors --------------------------------------------------------------------------------

FAST = [m.name for m in segview.methods() if not m.slow]
SLOW = [m.name for m in segview.methods() if m.slow]


def _detect_or_named_error(values, method) -> None:
    try:
        res = segview.detect(values, method)
    except (InputError, ParameterError):
        return
    n = len(values)
    cps = np.asarray(res.change_points)
    assert cps.ndim == 1 and np.all(np.diff(cps) > 0) and (cps.size == 0 or (cps[0] > 0
                                                                              and cps[-1] < n))
    assert res.steady_start is None or 0 <= res.steady_start < n


@FUZZ
@given(values=st.lists(numbers, min_size=0, max_size=80), method=st.sampled_from(FAST))
def test_fuzz_fast_detectors(values, method):
    _detect_or_named_error(values, method)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(values=st.lists(st.sampled_from(EXTREMES[:12]), min_size=0, max_size=40),
       method=st.sampled_from(SLOW))
def test_fuzz_slow_detectors(values, method):
    _detect_or_named_error(values, method)


# -- parameters -------------------------------------------------------------------------------

ANY_VALUE = st.one_of(st.none(), st.booleans(), st.integers(-(10**400), 10**400),
                      st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=10),
                      st.lists(st.integers(), max_size=2), st.sampled_from(["auto", "none", "bic",
                                                                            "1e400", "-0", " 3 "]))
PARAMS = [(m, p) for m in segview.methods() for p in m.params]


@FUZZ
@given(pair=st.sampled_from(PARAMS), value=ANY_VALUE)
def test_fuzz_every_parameter(pair, value):
    spec, p = pair
    try:
        got = spec.coerce({p.name: value})[p.name]
    except ParameterError as err:
        assert p.name in str(err) and len(str(err)) < 400
        return
    if p.kind in ("int", "float") and isinstance(got, (int, float)) and not isinstance(got, bool):
        assert math.isfinite(got)
        assert p.low is None or got >= p.low
        assert p.high is None or got <= p.high


# -- command line -----------------------------------------------------------------------------

@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=st.sampled_from(["binseg", "kbkssd", "nope", "all", "BINSEG", "", "op,,pelt"]),
       extra=st.lists(st.sampled_from([["--param", "penalty=1e400"], ["--param", "nope=1"],
                                       ["--param", "penalty"], ["--format", "json"],
                                       ["--format", "xml"], ["--jobs", "1"], ["--preset", "nope"],
                                       ["--preset", "faithful"], ["--help-params"]]),
                      max_size=3))
def test_fuzz_cli_detect(tmp_path_factory, capsys, method, extra):
    folder = tmp_path_factory.mktemp("cli")
    (folder / "s.json").write_text(json.dumps([[1.0] * 40 + [5.0] * 40]))
    argv = ["detect", str(folder), "-m", method, *[a for pair in extra for a in pair]]
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse usage errors
        rc = exc.code
    out = capsys.readouterr()
    assert rc in (0, 1, 2), (argv, rc)
    assert "Traceback" not in out.err, (argv, out.err)
