import pytest

from segview.core.errors import ParameterError
from segview.core.params import ParamSpec, Params, coerce_params, parse_assignment

WIN = ParamSpec("window", "int", 100, 10, 1000, 10, unit="samples", help="Block length")
TCRIT = ParamSpec("t_crit", "float", 4.0, 0.5, 10.0, 0.1)
FLAG = ParamSpec("both", "bool", False)
MODE = ParamSpec("mode", "str", "exact", choices=("exact", "ga"))
PEN = ParamSpec("penalty", "float", 10.0, 0.0, None, aliases=("bic", "aic"))


def test_coerce_from_cli_strings():
    assert WIN.coerce("200") == 200 and isinstance(WIN.coerce("200"), int)
    assert TCRIT.coerce("3.5") == 3.5
    assert FLAG.coerce("true") is True and FLAG.coerce("0") is False
    assert MODE.coerce("ga") == "ga"
    assert PEN.coerce("BIC") == "bic" and PEN.coerce("2.5") == 2.5


@pytest.mark.parametrize("spec,value,fragment", [
    (WIN, "5", "below the minimum 10"),
    (WIN, 2000, "above the maximum 1000"),
    (WIN, "12.5", "whole number"),
    (WIN, "abc", "expected a number"),
    (TCRIT, "nan", "finite"),
    (TCRIT, True, "expected a number"),
    (FLAG, "maybe", "true or false"),
    (MODE, "fast", "not one of exact, ga"),
    (PEN, "mdl", "or one of bic, aic"),
])
def test_bad_values_name_the_parameter(spec, value, fragment):
    with pytest.raises(ParameterError) as exc:
        spec.coerce(value)
    assert spec.name in str(exc.value) and fragment in str(exc.value)


def test_coerce_params_fills_defaults_and_rejects_unknown():
    p = coerce_params((WIN, TCRIT), {"t_crit": "5"}, "kb")
    assert p == {"window": 100, "t_crit": 5.0}
    with pytest.raises(ParameterError, match="kb: parameter 'windw': unknown parameter"):
        coerce_params((WIN, TCRIT), {"windw": 3}, "kb")


def test_params_hashable_and_immutable():
    a, b = Params({"x": 1, "y": 2.0}), Params({"y": 2.0, "x": 1})
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert a.replace(x=5)["x"] == 5 and a["x"] == 1
    with pytest.raises(TypeError):
        a["x"] = 3  # type: ignore[index]


def test_invalid_default_is_a_programming_error():
    with pytest.raises(ParameterError):
        ParamSpec("w", "int", 5, 10, 20)


def test_describe_mentions_default_range_and_unit():
    text = WIN.describe()
    assert "default 100 samples" in text and "range 10 to 1000" in text


def test_parse_assignment():
    assert parse_assignment("prob-threshold=0.9") == ("prob_threshold", "0.9")
    with pytest.raises(ParameterError, match="KEY=VALUE"):
        parse_assignment("t_crit")


def test_presets_override_defaults_and_explicit_values_override_presets():
    from segview.core.params import ParamSpec, Preset
    from segview.core.registry import DetectorSpec
    from segview.core.errors import ParameterError
    import pytest as _pytest

    spec = DetectorSpec(
        name="demo", label="Demo", version="1", produces="change_points",
        params=(ParamSpec("a", "float", 1.0, low=0.0, high=10.0), ParamSpec("b", "int", 2, low=0, high=9)),
        run=lambda *a: None,
        presets=(Preset("faithful", {"a": 3.0}), Preset("Other", {"a": 4.0, "b": 5})),
    )
    assert spec.coerce({}) == {"a": 1.0, "b": 2}
    assert spec.coerce({}, preset="faithful") == {"a": 3.0, "b": 2}
    assert spec.coerce({"b": 7}, preset="other") == {"a": 4.0, "b": 7}
    with _pytest.raises(ParameterError, match="unknown preset 'nope'.*faithful, Other"):
        spec.coerce({}, preset="nope")
