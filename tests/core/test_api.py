import numpy as np
import pytest

import segview
from segview.core import registry
from segview.core.errors import InputError, ParameterError, UnknownMethodError
from tests.fakes import FAKE_ONSET, registered


def test_unknown_method_lists_known_ones():
    with pytest.raises(UnknownMethodError, match="unknown method 'nosuch'"):
        segview.detect([1.0, 2.0, 3.0], "nosuch")


def test_detect_fills_defaults_and_runtime():
    with registered(FAKE_ONSET):
        res = segview.detect([5.0, 1.0, 1.0, 1.0], "FAKE_ONSET")  # case-insensitive
        assert res.params == {"level": 0.5} and res.steady_start == 1
        assert list(res.change_points) == [1] and res.runtime_ms >= 0
        assert not res.change_points.flags.writeable


def test_out_of_range_param_and_bad_input():
    with registered(FAKE_ONSET):
        with pytest.raises(ParameterError, match="fake_onset: parameter 'level'.*above the maximum"):
            segview.detect([1.0, 2.0], "fake_onset", level=3)
        with pytest.raises(ParameterError, match="unknown parameter"):
            segview.detect([1.0, 2.0], "fake_onset", levle=0.3)
        with pytest.raises(InputError, match="needs at least 2 points"):
            segview.detect([1.0], "fake_onset")
        with pytest.raises(InputError, match="non-finite value inf at index 2"):
            segview.detect([1.0, 2.0, np.inf], "fake_onset")
        with pytest.raises(InputError, match="empty"):
            segview.detect([], "fake_onset")


def test_duplicate_registration_refused():
    with registered(FAKE_ONSET):
        with pytest.raises(ValueError, match="already registered"):
            registry.register(FAKE_ONSET)


def test_every_registered_detector_is_well_formed():
    for spec in segview.methods():
        assert spec.produces in ("onset", "change_points")
        assert spec.version and spec.label and spec.citation, spec.name
        defaults = spec.defaults()
        for p in spec.params:
            assert p.help, f"{spec.name}.{p.name} has no help"
            assert defaults[p.name] == p.default
