"""R's random stream (set.seed scrambling, Mersenne-Twister, unif_rand, sample) against numbers R
printed: tests/data/ecp_kcpa/rng_golden.txt, made by rng_golden.R beside it (R 4.2)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from segview.core.detectors import _rrng

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "ecp_kcpa" / "rng_golden.txt"


@pytest.fixture(scope="module")
def golden() -> dict[str, list[float]]:
    out = {}
    for line in GOLDEN.read_text().splitlines():
        key, *vals = line.split()
        out[key] = [float(v) for v in vals]
    return out


@pytest.mark.parametrize("key,seed", [("runif_42", 42), ("runif_0", 0),
                                      ("runif_max", 2147483647)])
def test_runif_bit_for_bit(golden, key, seed):
    want = golden[key]
    got = _rrng.runif(_rrng.seed_state(seed), len(want))
    assert got.tolist() == want


@pytest.mark.parametrize("key,seed,m,k,base", [
    ("sample_42_10", 42, 10, 10, 1), ("sample_7_1000_5", 7, 1000, 5, 0),
    ("sampleint_123_100000_3", 123, 100000, 3, 1),  # 17 bits: two 16-bit chunks per draw
    ("sample_5_70000_4", 5, 70000, 4, 1), ("sample_1_675_250", 1, 675, 250, 0)])
def test_sample_without_replacement(golden, key, seed, m, k, base):
    got = _rrng.sample(_rrng.seed_state(seed), m, k) + base
    assert got.tolist() == golden[key]


def test_state_carries_over_between_calls(golden):
    st = _rrng.seed_state(9)
    a = _rrng.sample(st, 30) + 1
    b = _rrng.sample(st, 70) + 31
    assert np.concatenate([a, b]).tolist() == golden["twoperms_9"]


@pytest.mark.parametrize("key,seed,m,k", [("rounding_7_10", 7, 10, 10),
                                          ("rounding_3_70000_3", 3, 70000, 3)])
def test_rounding_sampler_of_old_r(golden, key, seed, m, k):
    got = _rrng.sample(_rrng.seed_state(seed), m, k, kind="rounding") + 1
    assert got.tolist() == golden[key]
