"""Auto-PARM: piecewise autoregressive segmentation by minimum description length.

Papers: Davis, Lee & Rodriguez-Yam (2006), "Structural break estimation for nonstationary time series
models", JASA (Auto-PARM); applied to grid workloads in seed 004 (MDL code length in Yule-Walker
form, genetic algorithm with islands, 20 restarts, Ljung-Box per piece, residual bootstrap).
Spec: ``docs/algorithms/autoparm.md``.

Index convention: a breakpoint is reported as the 0-based index of the first sample of the new piece
(``cp_j = tau_j - 1`` with the paper's 1-based piece starts ``tau_j``).

Version 3's default (``docs/defaults.md``): no piece shorter than ``min_span_share`` = 3.3 % of the
series (99 of 3,000 samples; at most 30 pieces), chosen by measurement: the published span table
alone (share 0, version 2's default, presets ``exact``, ``faithful``, ``davis2006``) cuts heavy-tailed,
autocorrelated benchmark series into a piece every 25 samples (JMH: median 4 % of n as breaks).
``penalty_factor`` multiplies each piece's ``ln n`` term in what is minimised (1, the published code
length, by default; the factor that stops the floods, 16, also hides the spec's simulated breaks).

Modes: ``mode="exact"`` (default) minimises the code length exactly by dynamic programming over the
same search space (optimal partitioning bounds the number of breaks, then segment neighbourhood);
``mode="ga"`` is the paper's seeded genetic algorithm (islands, migration, restarts). The exact
optimum is never worse than the GA's. ``stats["code_length"]`` is in nats (natural logarithms).
"""
from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import ParameterError
from ..lazy import lazy_module
from ..params import ParamSpec, Params, Preset
from ..registry import Cost, DetectorSpec, gib, register
from ..result import DetectionResult, Track

if TYPE_CHECKING:
    from . import _autoparm_kernels as K
else:
    K = lazy_module("._autoparm_kernels", __package__)

log = logging.getLogger(__name__)

#: The default ``min_span_share`` since version 3 (docs/defaults.md): no piece shorter than 3.3 %
#: of the series (99 of 3,000 samples), so at most 30 pieces. Versions 1-2 used the published span
#: table alone (share 0, the presets), which floods heavy-tailed benchmark series.
MIN_SPAN_SHARE = 0.033

#: Minimum piece length m_p per AR order (Davis et al. 2006; seed 004 confirms p = 0, 1, 6).
SPAN_TABLE = (10, 10, 12, 14, 16, 18, 20, 25, 25, 25, 25)
SPAN_HIGH = 50

PARAMS = (
    ParamSpec("mode", "str", "exact", choices=("exact", "ga"), stage="prepare",
              help="exact (default): global MDL optimum by dynamic programming; ga: the paper's "
                   "genetic algorithm (seeded; stalls above the optimum on long series with many "
                   "breaks, see docs/autoparm-ga.md)"),
    ParamSpec("search", "str", "pruned", choices=("pruned", "dense"), stage="prepare",
              help="exact mode: pruned (one optimal-partitioning pass, then the piece-count search "
                   "over only the pieces that can be optimal; same optimum, proof in the code) or "
                   "dense (the spec's search over every piece; the reference)"),
    ParamSpec("likelihood", "str", "yule-walker", choices=("yule-walker", "exact"),
              stage="prepare",
              help="code length form: yule-walker (the seed's approximation) or exact (Gaussian "
                   "likelihood of each fitted AR piece; the GA's fitness and the reported code "
                   "length; the exact search still minimises the Yule-Walker form)"),
    ParamSpec("max_order", "int", 20, low=0, high=40, stage="prepare",
              help="largest AR order of a piece"),
    ParamSpec("min_span", "int", 10, low=2, high=100000, unit="samples", stage="prepare",
              help="raises every order's minimum piece length to at least this value (10 keeps "
                   "the published span table)"),
    ParamSpec("penalty_factor", "float", 1.0, low=0.01, high=1000.0, step=0.5, stage="prepare",
              help="multiplies each piece's ln n term of the code length (the cost of a break's "
                   "location): larger values mean fewer breaks; 1 (default) is the published code "
                   "length. Measured against the benchmark floods and rejected as the default: "
                   "the factor that stops them (16) also hides the spec's simulated breaks "
                   "(docs/defaults.md)"),
    ParamSpec("min_span_share", "float", MIN_SPAN_SHARE, low=0.0, high=0.5, step=0.001,
              stage="prepare",
              help="raises every order's minimum piece length to at least this share of the "
                   "series length (default 0.033, version 3, chosen by measurement: with 0 the "
                   "heavy-tailed benchmark series are cut into a piece every 25 samples, "
                   "docs/defaults.md; 0 = the published span table, presets exact, faithful, "
                   "davis2006)"),
    ParamSpec("var_floor", "float", 1e-10, low=0.0, high=1.0, log=True, stage="prepare",
              help="innovation variances below this fraction of the series variance are raised "
                   "to it (constant pieces)"),
    ParamSpec("n_breaks", "int", None, low=0, high=100000, optional=True,
              help="exact mode: force this number of breakpoints (automatic: least code length)"),
    ParamSpec("seed", "int", 0, low=0, high=2**31 - 1, stage="prepare",
              help="seed of the genetic algorithm and of the bootstrap"),
    ParamSpec("restarts", "int", 20, low=1, high=1000, stage="prepare",
              help="GA: independent runs; the lowest code length is kept"),
    ParamSpec("islands", "int", 100, low=1, high=1000, stage="prepare",
              help="GA: number of islands"),
    ParamSpec("population", "int", 50, low=2, high=1000, stage="prepare",
              help="GA: chromosomes per island"),
    ParamSpec("migrants", "int", 2, low=0, high=100, stage="prepare",
              help="GA: best chromosomes sent to the next island at each migration"),
    ParamSpec("migration_interval", "int", 5, low=1, high=1000, stage="prepare",
              help="GA: offspring per island between migrations"),
    ParamSpec("stable_migrations", "int", 10, low=1, high=1000, stage="prepare",
              help="GA: stop after this many migrations without a better chromosome"),
    ParamSpec("max_migrations", "int", 1000, low=1, high=100000, stage="prepare",
              help="GA: cap on migrations per run"),
    ParamSpec("bootstrap", "int", 0, low=0, high=1000,
              help="residual-bootstrap samples for the stability report (0: off)"),
    ParamSpec("burn", "int", 100, low=0, high=100000, unit="samples",
              help="bootstrap: burn-in of each simulated piece"),
)


def effective_min_span(n: int, p: Params | dict[str, Any]) -> int:
    """``min_span`` raised to ``ceil(min_span_share * n)``: the floor of every piece's length."""
    share = float(p.get("min_span_share", 0.0) or 0.0)
    return max(int(p["min_span"]), math.ceil(share * n - 1e-9))


def spans_for(max_order: int, min_span: int = 10) -> NDArray[np.int64]:
    """Minimum piece length for orders ``0..max_order``."""
    table = [SPAN_TABLE[p] if p < len(SPAN_TABLE) else SPAN_HIGH for p in range(max_order + 1)]
    return np.array([max(m, min_span) for m in table], dtype=np.int64)


def _floor(y: NDArray[np.float64], rel: float) -> float:
    g0 = float(np.mean((y - y.mean()) ** 2))
    return rel * g0 if g0 > 0 and rel > 0 else 1e-300


def yule_walker(z: NDArray[np.float64], p: int) -> tuple[NDArray[np.float64], float]:
    """Yule-Walker AR(p) coefficients and innovation variance of a piece (biased autocovariances)."""
    n = z.size
    c = z - z.mean()
    g = np.array([np.dot(c[: n - h], c[h:]) / n for h in range(p + 1)])
    phi = np.zeros(p + 1)
    v = g[0]
    for k in range(1, p + 1):
        if v <= 0:
            break
        a = (g[k] - np.dot(phi[1:k], g[k - 1:0:-1])) / v
        prev = phi.copy()
        phi[k] = a
        phi[1:k] = prev[1:k] - a * prev[k - 1:0:-1]
        v = v * (1 - a * a)
    return phi[1:], float(v)


def code_length(y: NDArray[np.float64], starts: list[int], orders: list[int],
                var_floor: float = 1e-10, likelihood: str = "yule-walker"
                ) -> tuple[float, list[dict[str, float]]]:
    """MDL code length (nats) of a segmentation, computed directly (autoparm.md §2), and its terms.

    Args:
        y: the series.
        starts: 0-based first index of every piece after the first.
        orders: AR order of each piece (``len(starts) + 1`` values).
        var_floor: relative variance floor.
        likelihood: ``"yule-walker"``: the seed's approximation, fit term
            ``n_j/2 log(2 pi s2_j)``; ``"exact"``: the exact form, fit term
            ``n_j/2 log(2 pi) + 1/2 log det V_j + 1/2 (y_j - mu_j)' V_j^-1 (y_j - mu_j)`` with
            ``V_j`` the covariance of ``n_j`` values of the fitted AR (Yule-Walker ``phi_j``,
            ``s2_j``). For order 0 the exact form is the approximation plus ``n_j/2``.
    """
    if likelihood not in ("yule-walker", "exact"):
        raise ValueError(f"likelihood must be 'yule-walker' or 'exact', got {likelihood!r}")
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    floor = _floor(y, var_floor)
    bounds = [0, *starts, n]
    m = len(starts)
    terms = []
    total = K.int_code(m) + (m + 1) * math.log(n)
    for j, p in enumerate(orders):
        piece = y[bounds[j]:bounds[j + 1]]
        nj = piece.size
        phi, s2 = yule_walker(piece, p)
        s2f = max(s2, floor)
        if likelihood == "exact":
            logdet, quad = K.ar_exact_terms(piece - piece.mean(), np.ascontiguousarray(phi), s2f)
            fit = 0.5 * nj * K.LOG_2PI + 0.5 * logdet + 0.5 * quad
        else:
            fit = 0.5 * nj * math.log(2 * math.pi * s2f)
        t = {"s2": s2, "L_p": K.int_code(p), "order_term": 0.5 * (p + 2) * math.log(nj),
             "fit_term": fit}
        terms.append(t)
        total += t["L_p"] + t["order_term"] + t["fit_term"]
    return total, terms


def _chunks(lo: int, hi: int, parts: int = 40) -> list[tuple[int, int]]:
    """Split end positions ``[lo, hi)`` so that each chunk has about the same O(e) work."""
    if hi <= lo:
        return []
    edges = sorted({lo, hi, *(int(round(math.sqrt(lo * lo + (hi * hi - lo * lo) * k / parts)))
                              for k in range(1, parts))})
    return [(a, b) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def _dp_pass(prefix, p0, spans, floor, n, kmax, ctx, f0, f1, logn):
    """One DP pass (cost columns, OP and segment neighbourhood up to ``kmax`` pieces); ``logn``
    is each piece's location term (``ln n`` times ``penalty_factor``)."""
    s_arr, q_arr = prefix
    gcost = np.full(n + 1, np.inf)
    gcost[0] = 0.0
    garg = np.full(n + 1, -1, dtype=np.int64)
    f = np.full((kmax + 1, n + 1), np.inf)
    f[0, 0] = 0.0
    b = np.full((kmax + 1, n + 1), -1, dtype=np.int64)
    w = K.order_weights(n, p0, spans)
    chunks = _chunks(int(spans.min()), n + 1)
    for c, (e0, e1) in enumerate(chunks):
        ctx.progress(f0 + (f1 - f0) * c / len(chunks), "dynamic programming")
        K.dp_chunk(s_arr, q_arr, p0, spans, floor, logn, w, gcost, garg, f, b, e0, e1)
    m_op, e = 0, n
    while garg[e] > 0:
        m_op += 1
        e = int(garg[e])
    return gcost, f, b, m_op


def _sweep(prefix, p0, spans, floor, n, delta, ctx, f0, f1, logn, prune=True):
    """Pruned pass: optimal partitioning over all pieces, recording the near-optimal ones
    (``logn`` as in :func:`_dp_pass`)."""
    s_arr, q_arr = prefix
    gcost = np.full(n + 1, np.inf)
    gcost[0] = 0.0
    garg = np.full(n + 1, -1, dtype=np.int64)
    w = K.order_weights(n, p0, spans)
    wt = np.ascontiguousarray(w.T)
    cap = 16 * (n + 1)
    rec_s = np.empty(cap, dtype=np.int64)
    rec_e = np.empty(cap, dtype=np.int64)
    rec_c = np.empty(cap)
    nrec = skipped = 0
    chunks = _chunks(int(spans.min()), n + 1)
    for c, (e0, e1) in enumerate(chunks):
        ctx.progress(f0 + (f1 - f0) * c / len(chunks), "dynamic programming")
        while e0 < e1:
            e0, nrec, skip = K.op_sweep(s_arr, q_arr, p0, spans, floor, logn, w, wt, gcost,
                                        garg, e0, e1, delta, rec_s, rec_e, rec_c, nrec, prune)
            skipped += skip
            if e0 < e1:  # record buffers full: double them and go on from e0
                rec_s, rec_e, rec_c = (np.concatenate([a, np.empty_like(a)])
                                       for a in (rec_s, rec_e, rec_c))
    m_op, e = 0, n
    while garg[e] > 0:
        m_op += 1
        e = int(garg[e])
    return gcost, (rec_s, rec_e, rec_c, nrec), m_op, skipped


def prepare_exact(y: NDArray[np.float64], p: Params, ctx: RunContext) -> dict[str, Any]:
    """Exact stage (autoparm.md §4): the least code length over all segmentations.

    ``search="dense"`` is autoparm.md §4 as written: optimal partitioning (OP) bounds the number of breaks
    (step 3), then segment neighbourhood over every piece up to ``max(m_OP, 1) + 1`` pieces, both in
    one pass with a guessed bound (a second pass only if OP needs more).

    ``search="pruned"`` (default) finds the same optimum with one OP sweep and a segment
    neighbourhood over the few pieces that can belong to an optimal segmentation. Why no optimal
    piece is lost, with ``C`` the piece cost (including its ``log n``), ``G(e)`` the OP cost of
    ``y[:e]``, ``R(e)`` the OP cost of ``y[e:]``, ``H* = G(n)`` and ``m_OP`` the OP solution's break
    count:

    1. ``CL* <= H* + L(m_OP)``: the OP segmentation is one candidate.
    2. Let ``S*`` be optimal with ``m*`` breaks and ``H(S*) = CL* - L(m*) <= H* + L(m_OP)``
       (``L >= 0``). For any piece ``(s, e)`` of ``S*``, the pieces before it cost at least ``G(s)``
       and those after it at least ``R(e)``, so ``H(S*) >= G(s) + C(s, e) + R(e)``.
    3. ``R(e) >= H* - G(e)``, since an optimal prefix followed by an optimal suffix is a
       segmentation of the whole series, hence costs at least ``H*``.
    4. Together: ``G(s) + C(s, e) <= G(e) + L(m_OP)`` for every piece of every optimal
       segmentation. The sweep computes ``G`` and records exactly the pieces meeting this bound
       (with a guessed ``m_OP``, repeated once if OP needs more, and a rounding margin of
       ``1e-9 n``), so the segment neighbourhood over the recorded pieces finds every optimal
       segmentation, with the same tie rule (smallest start, then fewest pieces): a tied
       alternative is optimal too, so its pieces are recorded.
    5. The number of breaks is bounded as in the dense search (``m* <= max(m_OP, 1)``). Best code
       lengths for piece counts whose optimum exceeds the bound of step 1 cannot be recovered from
       the recorded pieces; ``cl_by_pieces`` shows NaN there (``n_breaks`` forces the dense search).
    6. Within the sweep, a block of 64 candidate starts is skipped at end ``e`` when a lower bound
       of ``G(s) + C(s, e)`` over the block exceeds an upper bound of ``G(e)`` plus the recording
       margin (the upper bound: the pieces through the previous optimum's block, evaluated first).
       Such pieces can neither be ``G(e)``'s argmin nor be recorded, so ``G``, the recorded set
       and hence the result are unchanged. The lower bound of ``C(s, e)``: Yule-Walker ``L v_P``
       is a Schur complement of the lag matrix of the zero-padded piece; dropping the padded rows,
       the rows before the block's last start and those after the first end of the current group
       of 32 ends, and centring the rest, removes positive semidefinite terms, so the Schur
       complement ``S`` of the remaining scatter
       (:func:`_autoparm_kernels.rows_schur`) satisfies ``S <= L v_P <= L v_p`` for every order
       ``p``, and ``C(s, e) >= log n + log L + L/2 log(2 pi S / L)`` (order 0's penalty is the
       least). That function is concave in ``L``, so its chord over the block bounds it from below.
       Yule-Walker costs with the order minimum and the span table do not satisfy PELT's
       inequality (autoparm.md §4), so no start is dropped for good; the bound only skips work at ``e``.

    Speed also comes from the single sweep (the dense search carries ``max(8, n/200)``
    neighbourhood rows through it) and from a kernel that runs the Levinson-Durbin recursion of
    many pieces side by side (vectorised; the same operations in the same order, so each evaluated
    piece cost is bit-identical to the dense path's).
    """
    n = y.size
    p0 = p["max_order"]
    spans = spans_for(p0, effective_min_span(n, p))
    floor = _floor(y, p["var_floor"])
    x = np.ascontiguousarray(y - y.mean())
    prefix = K.prefix_sums(x, p0)
    guess = max(8, n // 200)
    logn = math.log(n) * float(p["penalty_factor"])
    out = {"mode": "exact", "prefix": prefix, "spans": spans, "floor": floor, "logn": logn}
    if p["search"] == "dense":
        gcost, f, b, m_op = _dp_pass(prefix, p0, spans, floor, n, guess, ctx, 0.0, 0.95, logn)
        kmax = max(m_op, 1) + 1
        if kmax > guess:
            gcost, f, b, m_op = _dp_pass(prefix, p0, spans, floor, n, kmax, ctx, 0.5, 0.95, logn)
        else:
            f, b = f[: kmax + 1], b[: kmax + 1]
        return {**out, "f": f, "b": b, "h_star": float(gcost[n]), "m_op": m_op, "bound": None}
    tol = 1e-9 * (n + 1)
    gcost, rec, m_op, skipped = _sweep(prefix, p0, spans, floor, n, math.log(guess) + tol, ctx,
                                       0.0, 0.9, logn)
    if K.int_code(m_op) > math.log(guess):
        gcost, rec, m_op, skipped = _sweep(prefix, p0, spans, floor, n, K.int_code(m_op) + tol,
                                           ctx, 0.45, 0.9, logn)
    kmax = max(m_op, 1) + 1
    f, b = K.sparse_neighbourhood(*rec, n, kmax)
    h_star = float(gcost[n])
    return {**out, "f": f, "b": b, "h_star": h_star, "m_op": m_op, "n_recorded": int(rec[3]),
            "n_skipped": int(skipped),
            "bound": h_star + K.int_code(m_op) + tol}


def _backtrack(b: NDArray[np.int64], k: int, n: int) -> list[int]:
    starts, e = [], n
    for kk in range(k, 0, -1):
        s = int(b[kk, e])
        if kk > 1:
            starts.append(s)
        e = s
    return sorted(starts)


def _best_order(y: NDArray[np.float64], s: int, e: int, spans: NDArray[np.int64], floor: float
                ) -> int:
    n_j = e - s
    best, arg = math.inf, 0
    for order in range(spans.size):
        if spans[order] > n_j:
            continue
        _, s2 = yule_walker(y[s:e], order)
        c = K.order_cost(order, n_j, s2, floor, 0.0)
        if c < best:
            best, arg = c, order
    return arg


def _ga_restart_seeds(seed: int, restarts: int) -> list[int]:
    ss = np.random.SeedSequence(seed)
    return [int(s.generate_state(1)[0] & 0x7FFFFFFF) for s in ss.spawn(restarts)]


def prepare_ga(y: NDArray[np.float64], p: Params, ctx: RunContext) -> dict[str, Any]:
    """GA stage: ``restarts`` independent seeded runs, the lowest code length wins."""
    n = y.size
    p0 = p["max_order"]
    spans = spans_for(p0, effective_min_span(n, p))
    floor = _floor(y, p["var_floor"])
    x = np.ascontiguousarray(y - y.mean())
    pi_b = float(spans.min()) / n
    migrants = min(p["migrants"], p["population"] - 1)
    best: tuple[float, NDArray[np.int8] | None] = (math.inf, None)
    runs = []
    for r, s in enumerate(_ga_restart_seeds(p["seed"], p["restarts"])):
        ctx.progress(r / p["restarts"], f"GA run {r + 1} of {p['restarts']}")
        chrom, cl, migs = K.ga_run(x, p0, spans, floor, s, p["islands"], p["population"], migrants,
                                   p["migration_interval"], p["stable_migrations"],
                                   p["max_migrations"], pi_b, 1.0 - pi_b, 0.3, 0.3,
                                   p["likelihood"] == "exact", float(p["penalty_factor"]))
        runs.append({"code_length": float(cl), "migrations": int(migs)})
        if cl < best[0]:
            best = (float(cl), chrom.copy())
    chrom = best[1]
    assert chrom is not None
    starts = [int(t) for t in np.flatnonzero(chrom[1:] >= 0) + 1]
    orders = [int(chrom[0])] + [int(chrom[t]) for t in starts]
    return {"mode": "ga", "starts": starts, "orders": orders, "runs": runs, "spans": spans,
            "floor": floor}


def prepare(values: NDArray[np.float64], p: Params, ctx: RunContext) -> dict[str, Any]:
    y = np.asarray(values, dtype=np.float64)
    return prepare_exact(y, p, ctx) if p["mode"] == "exact" else prepare_ga(y, p, ctx)


def choose(prep: dict[str, Any], n: int, n_breaks: int | None, y: NDArray[np.float64],
           ctx: RunContext) -> tuple[list[int], NDArray[np.float64]]:
    """Piece starts of the least code length (or with ``n_breaks`` breaks); CL by piece count
    (NaN where the pruned search cannot give it, see :func:`prepare_exact`)."""
    f, b = prep["f"], prep["b"]
    kmax = f.shape[0] - 1
    bound = prep.get("bound")
    smin = int(prep["spans"].min())
    if n_breaks is not None and n_breaks + 1 > n // smin:
        # no piece is shorter than smin: refuse before the forced search allocates
        # 16 * (n_breaks + 2) * (n + 1) bytes (n_breaks=100000 on 3000 samples: 5.5 GB)
        raise ParameterError("n_breaks", f"{n_breaks} breakpoints: a series of {n} samples "
                                         f"admits at most {max(n // smin - 1, 0)} with pieces of at "
                                         f"least {smin} samples", "autoparm")
    if n_breaks is not None and (n_breaks + 1 > kmax or bound is not None):
        p0 = prep["spans"].size - 1
        _, f, b, _ = _dp_pass(prep["prefix"], p0, prep["spans"], prep["floor"], n, n_breaks + 1,
                              ctx, 0.0, 0.95, prep["logn"])
        kmax, bound = n_breaks + 1, None
    curve = np.array([K.int_code(k - 1) + f[k, n] for k in range(1, kmax + 1)])
    if bound is not None:
        curve[curve > bound] = np.nan
    if n_breaks is None:
        k = int(np.nanargmin(curve)) + 1
    else:
        k = n_breaks + 1
        if not np.isfinite(curve[k - 1]):
            return [], curve
    return _backtrack(b, k, n), curve


def ljung_box(resid: NDArray[np.float64], order: int, n_j: int, min_len: int = 18
              ) -> tuple[float, int]:
    """Ljung-Box p-value of a piece's residuals (autoparm.md §7); NaN for pieces shorter than ``min_len``.

    Q = n (n + 2) sum_{k=1..lag} r_k^2 / (n - k) on the biased sample autocorrelations r_k, against
    chi-square with ``lag - order`` degrees of freedom. The arithmetic is statsmodels 0.15's
    ``acorr_ljungbox(resid, lags=[lag], model_df=order)`` step by step (same p-values bit for bit,
    tested), without importing statsmodels, pandas and scipy.stats (about 120 MB in each worker).
    """
    lag = max(min(10, (n_j - order) // 5), order + 1)
    if n_j < min_len or resid.size <= lag or not np.any(resid != resid[0]):
        return math.nan, lag
    from scipy.special import chdtrc

    x = np.asarray(resid, dtype=np.float64)
    n = x.size
    xo = x - x.mean()
    acov = np.correlate(xo, xo, "full")[n - 1:] / n
    r = acov[:lag + 1] / acov[0]
    q = n * (n + 2) * np.cumsum(r[1:lag + 1] ** 2 / (n - np.arange(1, lag + 1)))[lag - 1]
    df = lag - order
    return (float(chdtrc(df, q)) if df > 0 else math.nan), lag


def piece_fits(y: NDArray[np.float64], starts: list[int], orders: list[int]
               ) -> list[dict[str, Any]]:
    """Per piece: bounds, order, mean, variances, AR coefficients, residuals, Ljung-Box p-value."""
    bounds = [0, *starts, y.size]
    out = []
    for j, order in enumerate(orders):
        s, e = bounds[j], bounds[j + 1]
        piece = y[s:e]
        mu = float(piece.mean())
        phi, s2 = yule_walker(piece, order)
        z = piece - mu
        resid = z[order:].copy()
        for i in range(1, order + 1):
            resid -= phi[i - 1] * z[order - i:z.size - i]
        pval, lag = ljung_box(resid, order, e - s)
        out.append({"start": s, "end": e, "order": order, "mean": mu,
                    "variance": float(np.mean(z * z)), "s2": s2, "phi": phi.tolist(),
                    "gamma": mu * (1 - float(phi.sum())), "lb_pvalue": pval, "lb_lag": lag,
                    "residuals": resid})
    return out


def whiteness_summary(pieces: list[dict[str, Any]], n: int) -> dict[str, float]:
    """Share of the series length in pieces by Ljung-Box p-value (seed 004 Table 4)."""
    lengths = np.array([pc["end"] - pc["start"] for pc in pieces], dtype=float)
    pv = np.array([pc["lb_pvalue"] for pc in pieces], dtype=float)
    ok = ~np.isnan(pv)
    share = {f"p>={t:.2f}": float(lengths[ok & (pv >= t)].sum() / n) for t in (0.95, 0.90, 0.80)}
    share["p<0.50"] = float(lengths[ok & (pv < 0.5)].sum() / n)
    share["p>=0.05"] = float(lengths[ok & (pv >= 0.05)].sum() / n)
    share["too_short"] = float(lengths[~ok].sum() / n)
    return share


def segment(y: NDArray[np.float64], p: Params, ctx: RunContext, prep: dict[str, Any] | None = None
            ) -> tuple[list[int], list[int], dict[str, Any]]:
    """Breakpoints and orders for ``y`` with params ``p`` (used by ``run`` and the bootstrap)."""
    if prep is None:
        prep = prepare(y, p, ctx)
    extra: dict[str, Any] = {}
    if prep["mode"] == "exact":
        starts, curve = choose(prep, y.size, p["n_breaks"], y, ctx)
        bounds = [0, *starts, y.size]
        orders = [_best_order(y, bounds[j], bounds[j + 1], prep["spans"], prep["floor"])
                  for j in range(len(bounds) - 1)]
        extra.update(cl_by_pieces=curve, m_op=prep["m_op"], h_star=prep["h_star"])
    else:
        starts, orders = prep["starts"], prep["orders"]
        extra.update(ga_runs=prep["runs"])
    return starts, orders, extra


def run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    """Auto-PARM segmentation of ``values``; see the module docstring."""
    y = np.asarray(values, dtype=np.float64)
    notes: list[str] = []
    prep = ctx.prepared if isinstance(ctx.prepared, dict) else prepare(y, params, ctx)
    starts, orders, extra = segment(y, params, ctx, prep)
    if params["mode"] == "ga":
        notes.append("GA mode: operator probabilities and island settings follow the spec's "
                     "recollection of Davis et al. (2006) and seed 004; stochastic, seeded")
    if params["n_breaks"] is not None and params["mode"] == "exact":
        notes.append(f"number of breakpoints forced to {params['n_breaks']}")
        if len(starts) != params["n_breaks"]:
            notes.append("no admissible segmentation with that many breakpoints")
    cl, terms = code_length(y, starts, orders, params["var_floor"], params["likelihood"])
    pf = float(params["penalty_factor"])
    if pf != 1.0:
        notes.append(f"code length minimised with each piece's ln n term times {pf:g}; stats "
                     "code_length is the published code length of the result")
    if params["min_span_share"] == MIN_SPAN_SHARE:
        notes.append(f"no piece shorter than {effective_min_span(y.size, params)} samples "
                     f"({100 * MIN_SPAN_SHARE:g} % of the series): version 3's default "
                     "(docs/defaults.md); versions 1-2 used the published span table alone "
                     "(preset exact, bit for bit)")
    if params["likelihood"] == "exact" and params["mode"] == "exact":
        notes.append("segmentation minimises the Yule-Walker code length; the code length "
                     "reported is the exact-likelihood form of that segmentation")
    pieces = piece_fits(y, starts, orders)
    stats: dict[str, Any] = {
        "code_length": cl, "orders": orders, "n_breaks": len(starts),
        "pieces": [{k: v for k, v in pc.items() if k != "residuals"} for pc in pieces],
        "lb_pvalues": [pc["lb_pvalue"] for pc in pieces],
        "whiteness": whiteness_summary(pieces, y.size), "cl_terms": terms, **extra,
    }
    tracks = [Track("piece mean", np.concatenate([np.full(pc["end"] - pc["start"], pc["mean"])
                                                  for pc in pieces]), kind="step"),
              Track("AR order", np.concatenate([np.full(pc["end"] - pc["start"], float(pc["order"]))
                                                for pc in pieces]), kind="step")]
    if params["bootstrap"] > 0:
        from ._autoparm_bootstrap import stability_report
        stats["stability"] = stability_report(y, starts, orders, params, ctx)
        notes.append(f"stability report from {params['bootstrap']} residual-bootstrap samples")
    ctx.progress(1.0, "done")
    return DetectionResult("autoparm", params, np.asarray(starts, dtype=np.int64), None,
                           tuple(tracks), stats, tuple(notes))


PRESETS = (
    Preset("exact", {"mode": "exact", "search": "pruned", "likelihood": "yule-walker",
                     "penalty_factor": 1.0, "min_span": 10, "min_span_share": 0.0},
           help="the global minimum of the seed's Yule-Walker code length as published (version "
                "2's default, bit for bit; it floods heavy-tailed benchmark series, "
                "docs/defaults.md)"),
    Preset("faithful", {"mode": "ga", "islands": 100, "population": 50, "migrants": 2,
                        "migration_interval": 5, "stable_migrations": 10, "restarts": 20,
                        "likelihood": "yule-walker", "penalty_factor": 1.0, "min_span": 10,
                        "min_span_share": 0.0},
           help="seed 004's genetic algorithm: 100 islands of 50, 2 migrants every 5 offspring, "
                "stop after 10 migrations without improvement, best of 20 restarts; stalls above "
                "the optimum on long series with many breaks (docs/autoparm-ga.md)"),
    Preset("davis2006", {"mode": "ga", "islands": 40, "population": 40, "migrants": 2,
                         "migration_interval": 5, "stable_migrations": 10, "restarts": 20,
                         "likelihood": "exact", "penalty_factor": 1.0, "min_span": 10,
                         "min_span_share": 0.0},
           help="the GA with Davis et al.'s 40 islands of 40 (as recalled in the spec, not checked "
                "against the paper) and the exact-likelihood code length"),
)

def max_breaks(n: int, params: Params) -> int:
    """The most breakpoints a series of ``n`` samples admits: every piece needs at least the
    order-0 minimum span (``min_span`` and the span table), so ``n // span - 1``."""
    return max(n // _min_piece(n, params) - 1, 0)


def _min_piece(n: int, params: Params) -> int:
    return int(spans_for(int(params["max_order"]), effective_min_span(n, params)).min())


def cost(n: int, p: Params) -> list[Cost]:
    """Time and memory of one run, most specific reason first (read by segview.core.limits).

    Exact mode: the search is quadratic in the length and linear in ``max_order`` (measured:
    4,000 samples, max_order 20, 1.2 s of CPU, ~1.4e8 of these steps a second); ``n_breaks`` and
    ``search=dense`` size 16-byte cost and backtrack tables. GA: chromosomes x length x
    migrations. ``bootstrap`` repeats the whole segmentation once per sample (a GA run of 300
    samples takes seconds, so 1000 of them take hours).
    """
    b = int(p.get("bootstrap", 0) or 0)
    out: list[Cost] = []
    if p.get("mode") == "exact":
        k = p.get("n_breaks")
        if k is not None:
            top = max_breaks(n, p)
            if k > top:
                return [Cost(why=f"n_breaks={k} is more than a series of {n} samples admits (at "
                                 f"most {top} with pieces of at least {_min_piece(n, p)} samples); "
                                 "the run is refused", warn=True)]
            mem = 16.0 * (k + 2) * (n + 1)  # cost and backtrack tables of the forced search
            out.append(Cost(bytes=mem, why=f"n_breaks={k} on {n} samples needs about {gib(mem)} "
                                           "of tables"))
        if p.get("search") == "dense":
            mem = 16.0 * (max(8, n // 200) + 1) * (n + 1)
            out.append(Cost(bytes=mem, why=f"search=dense on {n} samples needs about {gib(mem)} "
                                           "of tables (search=pruned does not)"))
        work = 0.5 * n * n * (int(p.get("max_order", 20)) + 1)
        out.append(Cost.of_steps(work, 16.0 * n * (int(p.get("max_order", 20)) + 1),
                                 f"the exact search is quadratic in the length: {n} samples are "
                                 f"about {work:.0e} steps (minutes to hours); mode=ga or a shorter "
                                 "series is faster"))
        if b:
            out.append(Cost.of_steps((1 + b) * work, 0.0,
                                     f"bootstrap={b} repeats the whole segmentation {b} times: "
                                     f"about {(1 + b) * work:.0e} steps on {n} samples (minutes or "
                                     "more)"))
        return out
    chromosomes = int(p["restarts"]) * int(p["islands"]) * int(p["population"])
    work = chromosomes * float(n) * int(p["max_migrations"]) * int(p["migration_interval"])
    # most runs stop long before max_migrations: 1/1000 of that bound is the measured time
    # (default GA, 1,000 samples: ~5-10 s of CPU)
    ga = Cost.of_steps(work / 1000, 8.0 * n * int(p["islands"]),
                       f"GA: restarts x islands x population = {chromosomes:,} chromosomes "
                       f"(default 100,000) on {n} samples may take hours")
    out.append(Cost(ga.seconds, ga.bytes, ga.why, warn=chromosomes > 10 * 20 * 100 * 50))
    if b > 0:
        out.append(Cost((1 + b) * ga.seconds, ga.bytes,
                        f"bootstrap={b} repeats the whole segmentation {b} times on {n} samples "
                        f"(about {(1 + b) * ga.seconds / 60:.0f} minutes with mode=ga)",
                        warn=b * float(n) > 2e6))
    return out


SPEC = register(DetectorSpec(
    cost=cost,
    length_limits=lambda n, p: {"n_breaks": max_breaks(n, p)},
    name="autoparm",
    label="Auto-PARM (piecewise AR, MDL)",
    version="3",
    produces="change_points",
    params=PARAMS,
    run=run,
    prepare=prepare,
    min_length=lambda p: int(max(10, p["min_span"])),
    affine_invariant=True,
    citation="Davis, Lee & Rodriguez-Yam (2006), Structural break estimation for nonstationary "
             "time series models, JASA 101(473); applied to grid workloads in seed 004",
    description="Piecewise autoregressive model chosen by minimum description length (MDL). "
                "Default (version 3): the exact search, the global minimum of the seed's "
                "Yule-Walker code length with no piece shorter than 3.3 % of the series "
                "(min_span_share, chosen by measurement: the published span table alone puts a "
                "break every 25 samples on heavy-tailed benchmark series, docs/defaults.md; "
                "preset exact is the published search, version 2's default) "
                "(pruned dynamic programming; CPU 0.8 s at n = 4096 and 8-9 s at 16384, 11-13x "
                "less than the full search; time grows as n^2). mode=ga (preset faithful) is the published "
                "island genetic algorithm, seeded; it is known to stall: on a 1895-point series with 20 breaks "
                "the best of 5 restarts ends 6-10 % above the optimum with fewer breaks "
                "(docs/autoparm-ga.md). Known failures of the model itself: spikes and heavy "
                "tails become many short pieces (Gaussian likelihood; the default's minimum piece "
                "bounds them), and exactly constant runs "
                "are isolated as their own pieces (variance floor).",
    slow=True,
    presets=PRESETS,
))
