"""Kernels that fail safe (issue 29, ``segview.core.kernels``, ``docs/kernels.md``): a numba or LLVM
failure of a fast path gives the plain exact path's result with a note, ``SEGVIEW_NO_SIMD=1``
skips the vector kernels, parallel launches from several threads are serialised, and numba's cache
folder is keyed by segview's version and the kernel sources."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba import njit
from numba.core.errors import LoweringError, TypingError

import segview
from segview.core import kernels
from segview.core.context import RunContext
from segview.core.detectors import _fpop_kernels as fk, _partition_kernels as pk
from segview.core.detectors.partition import optimal_partition
from segview.core.errors import Cancelled

ROOT = Path(__file__).resolve().parents[2]


def _series(n: int = 400, seed: int = 4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.repeat(rng.normal(0, 3, 5), -(-n // 5))[:n] + rng.standard_normal(n)


def _op_reference(y: np.ndarray, beta: float, tie_last: bool = False) -> tuple:
    """``F`` and ``last`` of the plain serial OP kernel, straight from the recursion."""
    from segview.core.detectors import _costs
    n = y.size
    S, Q = _costs.prefix_sums(y)
    F = np.empty(n + 1)
    last = np.full(n + 1, -1, dtype=np.int64)
    F[0] = -beta
    pk.op_advance(S, Q, F, last, 1, n + 1, beta, 1, _costs.L2, 0.0, False, tie_last)
    return F, last


@njit
def _untypable(y, centre, beta, tie_last, eps, lo, hi, F, last, t_from, t_to, C, scal, cnt):
    return C + "not a number"  # a real typing error at the first call


def test_fpop_compile_error_falls_back_to_ops_exact_result_with_a_note(monkeypatch):
    y = _series()
    beta = 2 * math.log(y.size)
    monkeypatch.setattr(fk, "fpop_l2_advance", _untypable)
    part = optimal_partition(y, "l2", beta, 1, search="fpop")
    F, last = _op_reference(y, beta)
    assert np.array_equal(part.F, F) and np.array_equal(part.last, last)
    assert part.search == "dp"
    assert len(part.notes) == 1 and "FPOP's vector kernel failed" in part.notes[0], part.notes


@pytest.mark.parametrize("error", [TypingError("no intrinsic"),
                                   LoweringError("llvm.experimental.vector.compress")])
@pytest.mark.parametrize("method", ["op", "pelt"])
def test_detect_with_a_failing_fpop_kernel_gives_the_dp_result_and_a_note(monkeypatch, error,
                                                                           method):
    y = _series(300, seed=8)
    kw = dict(preset="faithful", cost="l2", penalty="bic")
    want = segview.detect(y, method, search="dp", **kw)

    def fail(*args):
        raise error

    monkeypatch.setattr(fk, "fpop_l2_advance", fail)
    got = segview.detect(y, method, search="auto", **kw)
    assert list(got.change_points) == list(want.change_points)
    assert np.array_equal(got.stats["optimal_cost"], want.stats["optimal_cost"])
    assert got.stats["search"] == "dp"
    assert any("FPOP's vector kernel failed" in n and type(error).__name__ in n
               for n in got.notes), got.notes


def test_parallel_kernel_failure_falls_back_to_the_serial_kernel(monkeypatch):
    y = _series(500, seed=2)
    beta = 3.0

    def fail(*args):
        raise LoweringError("parfor lowering")

    monkeypatch.setattr(pk, "op_parallel_advance", fail)
    part = optimal_partition(y, "l2", beta, 1, threads=2, search="dp")
    F, last = _op_reference(y, beta)
    assert np.array_equal(part.F, F) and np.array_equal(part.last, last)
    assert part.threads == 1 and "OP's parallel kernel" in part.notes[0]


def test_pelt_vectorised_kernel_failure_falls_back_to_the_plain_pelt(monkeypatch):
    y = _series(500, seed=5)
    beta = 2 * math.log(y.size)

    def fail(*args):
        raise TypingError("vectorised kernel")

    monkeypatch.setattr(pk, "pelt_l2_advance", fail)
    part = optimal_partition(y, "l2", beta, 1, pruning=True, search="dp")
    F, last = _op_reference(y, beta)
    assert np.array_equal(part.F, F) and np.array_equal(part.last, last)
    assert "PELT" in part.notes[0]


def test_cancellation_and_data_errors_are_not_taken_for_kernel_failures():
    ctx = RunContext()
    ctx.cancel()
    with pytest.raises(Cancelled):
        optimal_partition(np.arange(100.0), "l2", 1.0, 1, search="fpop", ctx=ctx)
    assert not kernels.is_kernel_failure(ValueError("bad data"))
    assert kernels.is_kernel_failure(TypingError("x"))
    with pytest.raises(ZeroDivisionError):
        kernels.fast_or_plain(lambda: 1 / 0, lambda: 0, "test")


def test_a_run_cancelled_while_numba_compiles_is_cancelled_not_a_kernel_failure():
    """A worker reports numba compilations as progress (segview.core.workers.runner); when the
    run was cancelled that report raises Cancelled from inside numba's compile. It used to be
    taken for a kernel failure: a warning with a traceback on stderr (at every quit while the
    warm-up kernels compiled), then the whole plain path computed for nobody."""
    import numba
    from numba.core import event

    class CancelOnCompile(event.Listener):
        def on_start(self, ev):
            raise Cancelled()

        def on_end(self, ev):
            pass

    @numba.njit(cache=False)
    def never_compiled_yet(x):
        return x + 1.0

    plain_runs = []
    listener = CancelOnCompile()
    event.register("numba:compile", listener)
    try:
        with pytest.raises(Cancelled):
            kernels.fast_or_plain(lambda: never_compiled_yet(1.0),
                                  lambda: plain_runs.append(1) or 2.0, "test kernel")
    finally:
        event.unregister("numba:compile", listener)
    assert plain_runs == []
    assert not kernels.is_kernel_failure(Cancelled())


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    full = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full,
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


_NO_SIMD = """
    import math, sys
    import numpy as np
    import segview
    rng = np.random.default_rng(1)
    y = np.repeat(rng.normal(0, 3, 4), 100) + rng.standard_normal(400)
    kw = dict(preset="faithful", cost="l2", penalty="bic")
    fp = segview.detect(y, "op", search="fpop", **kw)
    dp = segview.detect(y, "op", search="dp", **kw)
    assert fp.stats["search"] == "dp", fp.stats["search"]
    assert list(fp.change_points) == list(dp.change_points)
    assert np.array_equal(fp.stats["optimal_cost"], dp.stats["optimal_cost"])
    assert any("SEGVIEW_NO_SIMD" in n for n in fp.notes), fp.notes
    loaded = [m for m in ("segview.core.detectors._fpop_kernels",
                          "segview.core.detectors._vec8") if m in sys.modules]
    assert not loaded, loaded
    print("ok")
"""


def test_no_simd_runs_ops_dynamic_programme_without_loading_the_vector_kernels():
    out = _run(_NO_SIMD, SEGVIEW_NO_SIMD="1")
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_no_simd_is_read_from_the_environment(monkeypatch):
    for value, enabled in (("1", False), ("yes", False), ("0", True), ("", True)):
        monkeypatch.setenv(kernels.NO_SIMD_ENV, value)
        assert kernels.simd_enabled() is enabled


_THREADS = """
    import threading
    import numpy as np
    from segview.core.detectors import _costs, _partition_kernels as pk, partition
    {patch}
    rng = np.random.default_rng(0)
    y = np.repeat(rng.normal(0, 3, 6), 300) + rng.standard_normal(1800)
    ref = partition.optimal_partition(y, "l2", 3.0, 1, threads=1, block=256)
    errors = []

    def work():
        try:
            for _ in range(15):
                p = partition.optimal_partition(y, "l2", 3.0, 1, threads=2, block=64)
                assert np.array_equal(p.F, ref.F) and np.array_equal(p.last, ref.last)
                assert not p.notes, p.notes
        except BaseException as exc:
            errors.append(repr(exc))

    ts = [threading.Thread(target=work) for _ in range(3)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    import numba
    assert numba.threading_layer() == "workqueue", numba.threading_layer()
    assert not errors, errors
    print("ok")
"""


def test_parallel_kernel_launched_from_several_threads_is_right_and_does_not_abort():
    """The explorer's in-process modes run op on several QThreadPool threads; numba's workqueue
    layer (pinned) aborts the process on a concurrent launch unless launches are serialised."""
    env = {"NUMBA_NUM_THREADS": "2"}
    env_clean = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    full = dict(env_clean, PYTHONPATH=str(ROOT), **env)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(_THREADS.format(patch=""))],
                         env=full, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_concurrent_launches_without_the_lock_do_abort():
    """The test above can fail: without the lock the same launches kill the process."""
    patch = "import contextlib; partition.parallel_launch = contextlib.nullcontext"
    env_clean = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    full = dict(env_clean, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(_THREADS.format(patch=patch))],
                         env=full, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode != 0 and "Concurrent access" in out.stderr, out.stderr[-2000:]


_CACHE = """
    import os
    from segview.core import kernels
    kernels.configure()
    from segview.core.detectors import _cost_kernels
    import numba
    print(os.environ["NUMBA_CACHE_DIR"])
    print(numba.config.CACHE_DIR)
    print(os.environ["NUMBA_THREADING_LAYER"], numba.config.THREADING_LAYER)
"""


def test_cache_dir_is_under_segviews_cache_and_named_by_version_and_sources(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",
                                                            "NUMBA_THREADING_LAYER")}
    env.update(PYTHONPATH=str(ROOT), SEGVIEW_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(_CACHE)], env=env,
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    env_dir, config_dir, layer = out.stdout.strip().splitlines()
    want = tmp_path / "numba" / kernels.cache_key()
    assert Path(env_dir) == want and Path(config_dir) == want
    assert kernels.cache_key().startswith(segview.__version__ + "-")
    assert layer == "workqueue workqueue"


def test_a_users_cache_dir_and_threading_layer_are_kept(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path / "mine"),
               NUMBA_THREADING_LAYER="omp", SEGVIEW_CACHE_DIR=str(tmp_path / "segview"))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(_CACHE)], env=env,
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    env_dir, config_dir, layer = out.stdout.strip().splitlines()
    assert env_dir == config_dir == str(tmp_path / "mine")
    assert layer == "omp omp"


def test_cache_key_changes_with_any_kernel_source(monkeypatch, tmp_path):
    a, b = tmp_path / "_a_kernels.py", tmp_path / "_b.py"
    a.write_text("from numba import njit\n")
    b.write_text("x = 1\n")
    monkeypatch.setattr(kernels, "kernel_sources", lambda: [a, b])
    k1 = kernels.cache_key()
    b.write_text("x = 2\n")  # e.g. an inlined callee in another module
    assert kernels.cache_key() != k1
    b.write_text("x = 1\n")
    assert kernels.cache_key() == k1


def test_every_numba_module_is_a_kernel_source_and_imports_numba_through_the_hook():
    sources = {p.name for p in kernels.kernel_sources()}
    for name in ("_fpop_kernels.py", "_rfpop_kernels.py", "_vec8.py", "_partition_kernels.py",
                 "_cost_kernels.py", "_pelt_r.py", "_pcg64.py", "cpssd.py"):
        assert name in sources
    for path in (ROOT / "segview" / "core").rglob("*.py"):
        text = path.read_text()
        if "@njit" in text and path.name != "_jit.py":
            assert "_jit import njit" in text or "lazy_njit" in text, path
