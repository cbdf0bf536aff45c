"""Reports of a warm-up analysis (issue 27 point 4): the summary as text, CSV and a LaTeX table,
and a self-contained HTML report with per-benchmark small multiples (inline SVG, no external
resource, opens offline). Qt-free, no template engine: strings escaped with :func:`html.escape`.

All four come from :func:`summary_rows`, one row per benchmark, so they agree with each other and
with :func:`~segview.core.warmup.to_json`. Column names follow warmup_stats' ``--output-json``
where the figure means the same (``classification``, ``detailed_classification`` counts as
``flat``/``warmup``/``slowdown``/``no_steady_state``, ``steady_state_iteration``,
``steady_state_time_to_reach_secs``, ``steady_state_time`` and ``steady_state_time_ci`` for
warmup_stats' own bootstrap median and half-width); segview's own figures have their own names:
``*_q1``/``*_q3`` are the 25th/75th percentiles (warmup_stats' ``*_iqr`` holds the 5th/95th),
``steady_perf_*`` the median of the executions' steady means and Kalibera & Jones' mean and
interval.
"""
from __future__ import annotations

import html
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..benchmark import Benchmark, measured
from ..errors import InputError
from .. import safecsv
from .analysis import BenchmarkWarmup, ExecutionWarmup
from .classify import CLASSES

#: Short ASCII symbols of the classes for terminals (the HTML and LaTeX draw warmup_stats' glyphs).
TEXT_SYMBOLS = {"flat": "--", "warmup": "\\_", "slowdown": "_/", "no steady state": "~~",
                "good inconsistent": "=", "bad inconsistent": "!="}

COLUMNS = ("benchmark", "method", "unit", "direction", "executions", "analysed", "classification",
           "consistency", "flat", "warmup", "slowdown", "no_steady_state",
           "steady_state_iteration", "steady_state_iteration_q1", "steady_state_iteration_q3",
           "steady_state_time_to_reach_secs", "steady_state_time_to_reach_secs_q1",
           "steady_state_time_to_reach_secs_q3", "steady_perf_median", "steady_perf_q1",
           "steady_perf_q3", "steady_perf_mean", "steady_perf_ci_low", "steady_perf_ci_high",
           "confidence", "steady_state_time", "steady_state_time_ci", "steady_reason", "warnings")


def summary_row(r: BenchmarkWarmup) -> dict[str, Any]:
    """One benchmark's summary (see the module doc for the columns; None: no figure)."""
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(benchmark=r.name, method=r.method, unit=r.unit, direction=r.direction,
               executions=len(r.executions), analysed=len(r.analysed),
               classification=r.classification, consistency=r.consistency,
               flat=r.counts.get("flat", 0), warmup=r.counts.get("warmup", 0),
               slowdown=r.counts.get("slowdown", 0),
               no_steady_state=r.counts.get("no steady state", 0),
               steady_reason=r.steady_reason, warnings=len(r.warnings))
    for key, spread in (("steady_state_iteration", r.steady_iteration),
                        ("steady_state_time_to_reach_secs", r.time_to_steady)):
        if spread is not None and spread.values:
            row[key] = spread.median
            row[key + "_q1"], row[key + "_q3"] = spread.percentile(25), spread.percentile(75)
    if r.steady_means is not None and r.steady_means.values:
        row.update(steady_perf_median=r.steady_means.median,
                   steady_perf_q1=r.steady_means.percentile(25),
                   steady_perf_q3=r.steady_means.percentile(75))
    if r.steady_ci is not None:
        row.update(steady_perf_mean=r.steady_ci.estimate, steady_perf_ci_low=r.steady_ci.low,
                   steady_perf_ci_high=r.steady_ci.high, confidence=r.steady_ci.confidence)
    if r.warmup_stats_perf is not None:
        row["steady_state_time"], row["steady_state_time_ci"] = r.warmup_stats_perf
    return row


def summary_rows(results: Sequence[BenchmarkWarmup]) -> list[dict[str, Any]]:
    return [summary_row(r) for r in results]


def _g(v: Any, digits: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return str(v)


def counts_text(row: Mapping[str, Any]) -> str:
    """``4 warmup, 1 flat``: the non-zero class counts, largest first."""
    pairs = [(row[k.replace(" ", "_")], k) for k in CLASSES if row[k.replace(" ", "_")]]
    pairs.sort(key=lambda p: -p[0])
    return ", ".join(f"{n} {k}" for n, k in pairs) or "-"


def format_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The summary as an aligned table for a terminal."""
    head = ["benchmark", "sym", "class", "counts", "steady iter (IQR)", "steady perf [CI]", "unit"]
    table = []
    for r in rows:
        cls = r["classification"]
        it = ("-" if r["steady_state_iteration"] is None else
              f"{_g(r['steady_state_iteration'])} ({_g(r['steady_state_iteration_q1'])}, "
              f"{_g(r['steady_state_iteration_q3'])})")
        if r["steady_perf_mean"] is not None:
            perf = (f"{_g(r['steady_perf_mean'])} [{_g(r['steady_perf_ci_low'])}, "
                    f"{_g(r['steady_perf_ci_high'])}]")
        elif r["steady_perf_median"] is not None:
            perf = _g(r["steady_perf_median"])
        else:
            perf = "-"
        table.append([str(r["benchmark"]), TEXT_SYMBOLS.get(cls, "?") if cls else "?",
                      cls or "not analysed", counts_text(r), it, perf, r["unit"] or "-"])
    widths = [max(len(x) for x in col) for col in zip(head, *table)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip()
             for line in [head, *table]]
    legend = "symbols: " + ", ".join(f"{s} {c}" for c, s in TEXT_SYMBOLS.items())
    return "\n".join(lines + [legend]) + "\n"


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return v


def format_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """The summary as CSV (full float precision; empty cell: no figure)."""
    buf = io.StringIO()
    w = safecsv.dict_writer(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows({k: _cell(r[k]) for k in COLUMNS} for r in rows)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------- LaTeX

_TEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                "^": r"\textasciicircum{}"}


def tex_escape(text: str) -> str:
    return "".join(_TEX_ESCAPES.get(c, c) for c in text)


# warmup_stats' glyphs (its sparklines), drawn with LaTeX's own picture environment so that the
# table needs no package beyond amsmath and longtable (sloped lines avoided: LaTeX's own picture
# mode cannot draw short ones).
_TEX_MACROS = r"""
\newcommand{\wsglyph}[1]{\setlength{\unitlength}{0.1em}\begin{picture}(15,8)#1\end{picture}}
\newcommand{\flatc}{\wsglyph{\put(0,3.5){\line(1,0){15}}}}
\newcommand{\warmup}{\wsglyph{\put(0,8){\line(1,0){7.5}}\put(7.5,0){\line(0,1){8}}\put(7.5,0){\line(1,0){7.5}}}}
\newcommand{\slowdown}{\wsglyph{\put(0,0){\line(1,0){7.5}}\put(7.5,0){\line(0,1){8}}\put(7.5,8){\line(1,0){7.5}}}}
\newcommand{\nosteadystate}{\wsglyph{\put(0,1){\line(1,0){3}}\put(3,1){\line(0,1){6}}\put(3,7){\line(1,0){3}}\put(6,1){\line(0,1){6}}\put(6,1){\line(1,0){3}}\put(9,1){\line(0,1){6}}\put(9,7){\line(1,0){3}}\put(12,1){\line(0,1){6}}\put(12,1){\line(1,0){3}}}}
\newcommand{\goodinconsistent}{\wsglyph{\put(1,5){\line(1,0){13}}\put(1,2){\line(1,0){13}}}}
\newcommand{\badinconsistent}{\wsglyph{\put(1,5){\line(1,0){13}}\put(1,2){\line(1,0){13}}\put(5,0){\line(0,1){8}}\put(10,0){\line(0,1){8}}}}
"""

TEX_SYMBOLS = {"flat": r"\flatc", "warmup": r"\warmup", "slowdown": r"\slowdown",
               "no steady state": r"\nosteadystate", "good inconsistent": r"\goodinconsistent",
               "bad inconsistent": r"\badinconsistent"}


def _tex_num(v: float, digits: int = 4) -> str:
    text = f"{v:.{digits}g}"
    if "e" in text:
        mant, exp = text.split("e")
        return f"{mant}\\times10^{{{int(exp)}}}"
    return text


def _tex_median_range(med: Any, lo: Any, hi: Any, pm: bool = False) -> str:
    if med is None:
        return "--"
    second = (f"[{_tex_num(lo)}, {_tex_num(hi)}]" if pm else
              f"({_tex_num(lo)}, {_tex_num(hi)})")
    return (f"$\\begin{{array}}{{c}}\\scriptstyle{{{_tex_num(med)}}}\\\\[-4pt]"
            f"\\scriptscriptstyle{{{second}}}\\end{{array}}$")


def format_latex(rows: Sequence[Mapping[str, Any]], *, standalone: bool = True) -> str:
    """The summary as a LaTeX table in the manner of warmup_stats' ``table_classification``
    (class glyph, steady iteration and time to reach it as median over (Q1, Q3), steady
    performance as Kalibera & Jones' mean over its [CI]). ``standalone``: a whole document
    (article, amsmath, longtable: all in texlive-latex-base) that ``pdflatex`` compiles; else the ``longtable`` only,
    which needs the glyph macros (:data:`TEX_MACROS`) in the preamble."""
    out = []
    if standalone:
        out.append("\\documentclass[10pt,a4paper]{article}\n\\usepackage[T1]{fontenc}\n"
                   "\\usepackage[utf8]{inputenc}\n\\usepackage{amsmath}\n"
                   "\\usepackage{longtable}\n"
                   "\\setlength{\\textwidth}{17cm}\\setlength{\\oddsidemargin}{0cm}\n")
        out.append(_TEX_MACROS)
        out.append("\\begin{document}\n\\section*{Summary of benchmark classifications}\n")
        out.append("\\noindent\\textbf{Symbol key:} " + ", ".join(
            f"{TEX_SYMBOLS[c]}~{c}" for c in sorted(TEX_SYMBOLS)) + ".\n\n")
    out.append("{\\footnotesize\n\\begin{longtable}{lclccc}\n\\hline\n"
               "Benchmark & & Class. & Steady iter (\\#) & Steady iter (s) & Steady perf \\\\\n"
               "\\hline\n\\endhead\n")
    for r in rows:
        cls = r["classification"]
        sym = TEX_SYMBOLS.get(cls, "") if cls else ""
        perf = "--"
        if r["steady_perf_mean"] is not None:
            perf = _tex_median_range(r["steady_perf_mean"], r["steady_perf_ci_low"],
                                     r["steady_perf_ci_high"], pm=True)
        elif r["steady_perf_median"] is not None:
            perf = f"${_tex_num(r['steady_perf_median'])}$"
        if r["unit"] and perf != "--":
            perf += f" {tex_escape(str(r['unit']))}"
        cells = [tex_escape(str(r["benchmark"])), sym,
                 tex_escape(f"{cls} ({counts_text(r)})" if cls else "not analysed"),
                 _tex_median_range(r["steady_state_iteration"], r["steady_state_iteration_q1"],
                                   r["steady_state_iteration_q3"]),
                 _tex_median_range(r["steady_state_time_to_reach_secs"],
                                   r["steady_state_time_to_reach_secs_q1"],
                                   r["steady_state_time_to_reach_secs_q3"]), perf]
        out.append(" & ".join(cells) + " \\\\\n")
    out.append("\\hline\n\\end{longtable}}\n")
    if standalone:
        conf = next((r["confidence"] for r in rows if r["confidence"] is not None), None)
        note = (f"Steady performance: Kalibera \\& Jones mean of the executions' steady means "
                f"over its {conf:.0%} bootstrap interval.".replace("%", "\\%")
                if conf is not None else "")
        out.append(f"\n\\noindent {note} Steady iteration: 0-based, median over (Q1, Q3).\n"
                   "\\end{document}\n")
    return "".join(out)


TEX_MACROS = _TEX_MACROS

# ----------------------------------------------------------------------------------------- HTML

_COLOURS = {"flat": "#2b8a3e", "warmup": "#1864ab", "slowdown": "#c92a2a",
            "no steady state": "#e67700", "good inconsistent": "#5c940d",
            "bad inconsistent": "#c2255c", None: "#868e96"}

# warmup_stats' canvas glyphs (warmup/html.py) as SVG paths in a 10x10 box
_GLYPH_PATHS = {
    "flat": "M0 6 H10",
    "warmup": "M0 1 H5 V9 H10",
    "slowdown": "M0 9 H5 V1 H10",
    "no steady state": "M0 8 H2.5 V2 H5 V8 H7.5 V2 H10",
    "good inconsistent": "M1 4 H9 M1 7 H9",
    "bad inconsistent": "M0 4 H10 M0 7 H10 M3 1 V10 M7 1 V10",
}


def glyph_svg(cls: str | None) -> str:
    """A class symbol as a 14x14 inline SVG (warmup_stats' glyphs)."""
    path = _GLYPH_PATHS.get(cls or "", "M2 2 L8 8 M2 8 L8 2")
    return (f'<svg class="glyph" width="14" height="14" viewBox="-2 -2 14 14" role="img" '
            f'aria-label="{html.escape(cls or "not analysed")}"><path d="{path}" fill="none" '
            f'stroke="{_COLOURS.get(cls, "#333")}" stroke-width="1.6"/></svg>')


_W, _H, _PAD = 240, 96, 4


def _envelope(x: np.ndarray, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """Points of a min/max envelope of ``x`` in ``buckets`` columns (all points when fewer): per
    column its minimum then its maximum, at the column's middle iteration (vectorised: 1,000
    panels of 2,000 iterations in a fraction of a second)."""
    n = x.size
    if n <= 2 * buckets:
        return np.arange(n, dtype=float), x
    edges = np.linspace(0, n, buckets + 1).astype(np.intp)[:-1]
    y = np.where(np.isfinite(x), x, np.nan)
    lo, hi = np.fmin.reduceat(y, edges), np.fmax.reduceat(y, edges)
    mid = (edges + np.append(edges[1:], n) - 1) / 2.0
    xs = np.repeat(mid, 2)
    ys = np.column_stack([lo, hi]).ravel()
    return xs, ys


def _y_range(values: Sequence[np.ndarray], executions: Sequence[ExecutionWarmup]
             ) -> tuple[float, float, bool]:
    """A y range shared by a benchmark's panels, and whether it is logarithmic: the non-outlier
    iterations' 0.5-99.5 % and every segment mean (outliers beyond are drawn clipped at the
    edge). A log scale when every value is positive and the range spans more than 20x (a JIT's
    first iterations are often 100x the steady ones; linear, the steady state would be a flat
    line at the bottom)."""
    parts = []
    for v, e in zip(values, executions):
        keep = np.isfinite(v)
        out = [i for i in e.outliers if i < v.size]
        keep[out] = False
        parts.append(v[keep])
    allv = np.concatenate(parts) if parts else np.zeros(0)
    if allv.size == 0:
        return 0.0, 1.0, False
    lo, hi = (float(q) for q in np.percentile(allv, [0.5, 99.5]))
    means = [m for e in executions for m in e.segment_means if math.isfinite(m)]
    if means:
        lo, hi = min(lo, min(means)), max(hi, max(means))
    log = lo > 0 and hi / lo > 20
    if log:
        lo, hi = math.log10(lo), math.log10(hi)
    if hi <= lo:
        pad = abs(lo) * 0.05 or 1.0
        return lo - pad, hi + pad, log
    pad = (hi - lo) * 0.04
    return lo - pad, hi + pad, log


def execution_svg(values: np.ndarray, e: ExecutionWarmup, lo: float, hi: float,
                  log: bool = False) -> str:
    """One execution's small multiple: iterations, outliers (red dots), change points (dashed),
    segment means, the steady segment shaded; ``lo``/``hi`` the y range (log10 of it when
    ``log``)."""
    n = values.size
    pw, ph = _W - 2 * _PAD, _H - 2 * _PAD - 12

    def px(i: float) -> float:
        return _PAD + (i / max(n - 1, 1)) * pw

    def py(v: float) -> float:
        t = math.log10(v) if log and v > 0 else (lo if log else v)
        c = min(max(t, lo), hi)
        return _PAD + 12 + (hi - c) / (hi - lo) * ph

    parts = [f'<svg class="exec" width="{_W}" height="{_H}" viewBox="0 0 {_W} {_H}" '
             f'xmlns="http://www.w3.org/2000/svg">',
             f'<rect x="0.5" y="0.5" width="{_W - 1}" height="{_H - 1}" fill="#fff" '
             f'stroke="{_COLOURS.get(e.classification, "#333")}"/>']
    label = f"#{e.index} {e.classification or 'not analysed: ' + (e.error or '')}"
    parts.append(f'<text x="{_PAD + 1}" y="11" font-size="10" '
                 f'fill="{_COLOURS.get(e.classification, "#333")}">{html.escape(label)}</text>')
    top, bottom = (10 ** hi, 10 ** lo) if log else (hi, lo)
    parts.append(f'<text x="{_W - _PAD - 1}" y="11" font-size="9" text-anchor="end" '
                 f'fill="#868e96">{html.escape(_g(bottom, 3))}..{html.escape(_g(top, 3))}'
                 f'{" log" if log else ""}</text>')
    if n and e.steady_iteration is not None:
        x0 = px(e.steady_iteration)
        parts.append(f'<rect class="steady" x="{x0:.1f}" y="{_PAD + 12}" '
                     f'width="{max(px(n - 1) - x0, 1):.1f}" height="{ph}" fill="#d3f9d8"/>')
    if n:
        xs, ys = _envelope(values, pw)
        ok = np.isfinite(ys)
        xs, ys = xs[ok], ys[ok]
        if log:
            ys = np.log10(np.where(ys > 0, ys, 10.0 ** lo))
        gx = _PAD + xs / max(n - 1, 1) * pw
        gy = _PAD + 12 + (hi - np.clip(ys, lo, hi)) / (hi - lo) * ph
        pts = " ".join(map(str, np.round(np.column_stack([gx, gy]).ravel(), 1).tolist()))
        parts.append(f'<polyline points="{pts}" fill="none" stroke="#495057" '
                     f'stroke-width="0.7"/>')
    for cp in e.segment_starts[1:]:
        x = px(cp - 0.5)
        parts.append(f'<line class="cp" x1="{x:.1f}" x2="{x:.1f}" y1="{_PAD + 12}" '
                     f'y2="{_H - _PAD}" stroke="#1c7ed6" stroke-dasharray="3,2"/>')
    ends = list(e.segment_starts[1:]) + [n]
    for a, b, m in zip(e.segment_starts, ends, e.segment_means):
        if math.isfinite(m):
            parts.append(f'<line class="mean" x1="{px(a):.1f}" x2="{px(max(b - 1, a)):.1f}" '
                         f'y1="{py(m):.1f}" y2="{py(m):.1f}" stroke="#f08c00" '
                         f'stroke-width="1.5"/>')
    for i in e.outliers:
        if i < n and math.isfinite(values[i]):
            parts.append(f'<circle class="outlier" cx="{px(i):.1f}" cy="{py(values[i]):.1f}" '
                         f'r="1.8" fill="#e03131"/>')
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body{font:14px system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em;color:#212529}
h1{font-size:1.4em}h2{font-size:1.15em;margin:1.6em 0 .3em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border-bottom:1px solid #dee2e6;padding:3px 8px;text-align:left;vertical-align:middle;
white-space:nowrap}
th{background:#f1f3f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
.glyph{vertical-align:middle;margin-right:4px}
.multiples{display:flex;flex-wrap:wrap;gap:6px}
.warn{color:#c92a2a;font-size:.9em;margin:.2em 0}
.meta,.legend{color:#495057;font-size:.9em}
"""

_HEAD_COLS = [("benchmark", "Benchmark"), ("classification", "Class"), ("counts", "Executions"),
              ("steady_state_iteration", "Steady iter (median)"),
              ("steady_state_iteration_q1", "Q1"), ("steady_state_iteration_q3", "Q3"),
              ("steady_state_time_to_reach_secs", "Time to steady (s)"),
              ("steady_perf_mean", "Steady perf (mean)"), ("steady_perf_ci_low", "CI low"),
              ("steady_perf_ci_high", "CI high"), ("unit", "Unit")]


def _num_td(key: str, v: Any) -> str:
    if v is None:
        return f'<td class="num" data-key="{key}" data-value="">&ndash;</td>'
    return (f'<td class="num" data-key="{key}" data-value="{html.escape(repr(v))}">'
            f'{html.escape(_g(v))}</td>')


def _summary_table(rows: Sequence[Mapping[str, Any]]) -> str:
    out = ['<table id="summary"><thead><tr>']
    out += [f"<th>{html.escape(t)}</th>" for _, t in _HEAD_COLS]
    out.append("</tr></thead><tbody>")
    for i, r in enumerate(rows):
        cls = r["classification"]
        out.append(f'<tr data-benchmark="{html.escape(str(r["benchmark"]))}">')
        out.append(f'<td data-key="benchmark"><a href="#b{i}">'
                   f'{html.escape(str(r["benchmark"]))}</a></td>')
        out.append(f'<td data-key="classification" data-value="{html.escape(cls or "")}">'
                   f'{glyph_svg(cls)}{html.escape(cls or "not analysed")}</td>')
        out.append(f'<td data-key="counts" data-value="{r["analysed"]}/{r["executions"]}">'
                   f'{html.escape(counts_text(r))}</td>')
        for key, _ in _HEAD_COLS[3:-1]:
            out.append(_num_td(key, r[key]))
        out.append(f'<td data-key="unit">{html.escape(str(r["unit"] or ""))}</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


def render_html(results: Sequence[BenchmarkWarmup], benchmarks: Sequence[Benchmark] | None = None,
                *, title: str = "Warm-up analysis", sources: Sequence[str] = ()) -> str:
    """The self-contained HTML report: summary table with class glyphs, then per benchmark its
    warnings and one small multiple per execution (:func:`execution_svg`). ``benchmarks`` (same
    order and names as ``results``) give the iterations to draw; without them only the table."""
    by_name = {b.name: b for b in benchmarks or ()}
    rows = summary_rows(results)
    legend = " ".join(f"{glyph_svg(c)}{html.escape(c)}&emsp;" for c in _GLYPH_PATHS)
    method = ", ".join(sorted({r.method for r in results})) or "-"
    out = ["<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>",
           f'<p class="meta">method: {html.escape(method)}; {len(results)} benchmarks'
           + (f"; from {html.escape(', '.join(sources))}" if sources else "") + "</p>",
           f'<p class="legend">{legend}</p>', _summary_table(rows),
           '<p class="legend">Steady iteration: 0-based first iteration of the steady state '
           "(median, Q1, Q3 over executions). Steady perf: mean of the executions' steady means "
           "with Kalibera &amp; Jones' two-level bootstrap interval. Panels: iterations (grey), "
           "change points (dashed blue), segment means (orange), outliers (red), steady state "
           "(green). One y scale per benchmark (range at the top right), clipped to the 0.5-99.5 % "
           "of non-outlier iterations; logarithmic when it spans more than 20x.</p>"]
    for i, (r, row) in enumerate(zip(results, rows)):
        out.append(f'<section id="b{i}"><h2>{glyph_svg(r.classification)}'
                   f"{html.escape(r.name)} &mdash; {html.escape(r.classification or 'not analysed')}"
                   f" ({html.escape(counts_text(row))})</h2>")
        if r.steady_reason:
            out.append(f'<p class="meta">{html.escape(r.steady_reason)}</p>')
        for w in r.warnings:
            out.append(f'<p class="warn">warning: {html.escape(w)}</p>')
        bench = by_name.get(r.name)
        if bench is not None:
            drop = r.params.get("harness_warmup", "drop") == "drop"
            values = []
            for s in bench.executions[:len(r.executions)]:
                try:
                    s2 = measured(s) if drop else s
                    values.append(np.asarray(s2.values, dtype=np.float64).reshape(-1))
                except InputError:  # an execution without measured iterations: drawn empty
                    values.append(np.zeros(0))
            lo, hi, log = _y_range(values, r.executions)
            out.append('<div class="multiples">')
            out += [execution_svg(v, e, lo, hi, log) for v, e in zip(values, r.executions)]
            out.append("</div>")
        out.append("</section>")
    out.append("</body></html>\n")
    return "\n".join(out)
