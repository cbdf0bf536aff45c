"""FPOP search for the exact L2 optimum (``op``/``pelt`` with ``search="fpop"``, chosen by ``auto``).

Functional pruning optimal partitioning (Maidstone, Hocking, Rigaill & Fearnhead 2017): the same
optimum as OP and PELT, with candidates pruned by the intervals of segment means where they can still
win. The kernel is :mod:`._fpop_kernels`; it returns bitwise the ``F`` and ``last`` arrays of ``op``
(same prefix sums, same cost formula, same tie rule), so the change points, ``optimal_cost`` and
``last`` statistics of ``op``/``pelt`` do not depend on the search. Memory: ``F`` and ``last``
(16 bytes a sample) plus the surviving candidates and tables of ``1/m`` and ``1/sqrt(m)`` (at
most 1 MB); no prefix-sum arrays.

Supported: ``cost="l2"``, ``min_size`` 1, any penalty but ``mbic`` (its ``ln(segment length)``
term is not a function of the mean), one thread. ``search="auto"`` uses FPOP exactly then and the
dynamic programme otherwise; ``search="fpop"`` outside that raises :class:`ParameterError`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..errors import ParameterError
from ..lazy import lazy_module
from ..params import ParamSpec

if TYPE_CHECKING:
    from . import _fpop_kernels as _fk
else:
    _fk = lazy_module("._fpop_kernels", __package__)

SEARCHES: tuple[str, ...] = ("auto", "dp", "fpop")
_STEPS_PER_CALL = 1 << 20

#: The ``search`` parameter of ``op`` and ``pelt``.
SEARCH_PARAM = ParamSpec(
    "search", "str", "auto", choices=SEARCHES,
    help="How the optimum is searched (the result is the same; under mbic PELT's own search is "
         "not exact, op's is): auto runs FPOP (functional "
         "pruning, Maidstone et al. 2017; near-linear even with few changes) for the l2 cost with "
         "min_size 1, one thread and a penalty other than mbic, op's pruned search for mbic with "
         "the l2 cost and min_size 1 (bitwise the programme), else the dynamic programme; dp "
         "always runs the detector's own dynamic programme (OP or PELT); fpop requires FPOP.")


def fpop_refusal(cost: str, min_size: int | None, penalty: float | str, threads: int = 1
                 ) -> str | None:
    """Why FPOP cannot run this configuration, or None when it can."""
    if cost != "l2":
        return f"FPOP supports the l2 cost only, got {cost!r}"
    if min_size not in (None, 1):
        return f"FPOP supports min_size=1 only, got {min_size} (use search='dp')"
    if isinstance(penalty, str) and penalty.strip().lower() == "mbic":
        return "FPOP cannot use the mbic penalty (its ln(segment length) term)"
    if threads > 1:
        return "FPOP runs on one thread; threads > 1 needs search='dp'"
    return None


def use_fpop(search: str, cost: str, min_size: int | None, penalty: float | str, threads: int,
             method: str) -> bool:
    """Resolve ``search``: True to run FPOP. Raises ParameterError for an impossible ``fpop``."""
    if search not in SEARCHES:
        raise ParameterError("search", f"{search!r} is not one of {', '.join(SEARCHES)}", method)
    if search == "dp":
        return False
    why = fpop_refusal(cost, min_size, penalty, threads)
    if why is not None and search == "fpop":
        raise ParameterError("search", why, method)
    return why is None


def fpop_l2(y: NDArray[np.float64], beta: float, tie_last: bool = False,
            ctx: RunContext = NULL_CONTEXT, eps_rel: float | None = None
            ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """``(F, last)`` of the exact L2 segmentation with penalty ``beta`` and min_size 1.

    Bitwise equal to ``optimal_partition(y, "l2", beta, 1)``'s ``F`` and ``last`` (``tie="last"``
    when ``tie_last``). ``y`` must be finite float64; ``eps_rel`` None is the kernel's ``EPS_REL``.
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.size
    centre = float(y.mean()) if n else 0.0
    lo = float(y.min()) - centre if n else 0.0
    hi = float(y.max()) - centre if n else 0.0
    pad = 1e-9 * max(abs(lo), abs(hi), 1e-300)
    F = np.empty(n + 1)
    last = np.empty(n + 1, dtype=np.int64)
    F[0] = -beta
    last[0] = -1
    C, scal, cnt = _fk.fpop_state()
    eps = _fk.EPS_REL if eps_rel is None else float(eps_rel)
    t = 1
    while t <= n:
        ctx.check()
        t_to = min(n + 1, t + _STEPS_PER_CALL)
        C = _fk.fpop_l2_advance(y, centre, float(beta), bool(tie_last), eps, lo - pad, hi + pad,
                                F, last, t, t_to, C, scal, cnt)
        t = t_to
        ctx.progress(t / (n + 1))
    return F, last

