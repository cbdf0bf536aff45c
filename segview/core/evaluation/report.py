"""Text, JSON and CSV renderings of an :class:`~.evaluate.EvaluationReport`, and static figures.

Figures use matplotlib's object API on the Agg canvas (no global backend switch, no Qt): error
histograms, paired-difference plots and agreement bars, each written as PNG and SVG.
"""
from __future__ import annotations

import io
import itertools
import json
import math
from pathlib import Path
from typing import Any

from .. import safecsv
from .evaluate import CP_ROW_KEYS, METHOD_KEYS, EvaluationReport

_LABELS = {
    "agreement": "agreement", "true_positive": "true positive (steady)",
    "false_positive": "false positive", "false_negative": "false negative",
    "true_negative": "true negative", "n_common": "scored series",
    "total_abs_error": "total |error|", "clustered_abs_error": "  clustered",
    "scattered_abs_error": "  scattered", "mean_raw_error": "mean error",
    "std_raw_error": "std error", "mean_abs_error": "mean |error|", "std_abs_error": "std |error|",
}


def _clean(obj: Any) -> Any:
    """NaN/inf -> None so the JSON is valid."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def _num(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if not math.isfinite(v):
            return "-"
        return f"{v:.6g}" if abs(v) < 1e-3 and v != 0 else f"{v:.2f}"
    return str(v)


def _sig(v: Any) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return f"{float(v):.5g}"


def format_json(report: EvaluationReport) -> str:
    return json.dumps(_clean(report.to_json_dict()), indent=1) + "\n"


def format_csv(report: EvaluationReport) -> str:
    """The per-method table, a blank line, then the tests table."""
    buf = io.StringIO()
    w = safecsv.writer(buf, lineterminator="\n")
    w.writerow(("method", *METHOD_KEYS))
    for m in report.methods:
        row = report.method_row(m)
        w.writerow((m, *(row[k] for k in METHOD_KEYS)))
    if report.tests:
        w.writerow(())
        w.writerow(("method_a", "method_b", "family", "test", "statistic", "p_value", "p_adjusted"))
        for t in report.tests:
            w.writerow((t.method_a, t.method_b, t.family, t.test, t.statistic,
                        "" if t.p_value is None else t.p_value,
                        "" if t.p_adjusted is None else t.p_adjusted))
    return buf.getvalue()


def format_text(report: EvaluationReport) -> str:
    """A readable summary: counts, errors, relative differences and tests."""
    names = report.methods
    width = max(12, *(len(m) + 2 for m in names))
    lines = [f"{report.n_series} series; onset errors over "
             + ("series where the truth and every method say steady"
                if report.mode == "joint" else "each method's own steady series")
             + " (error = truth - predicted; > 0 means detected too early)", ""]
    lines.append(" " * 26 + "".join(m.rjust(width) for m in names))
    rows = {m: report.method_row(m) for m in names}
    for key in METHOD_KEYS:
        lines.append(_LABELS[key].ljust(26) + "".join(_num(rows[m][key]).rjust(width) for m in names))
    for label, attr in (("median error", "median_raw_error"), ("median |error|", "median_abs_error")):
        lines.append(label.ljust(26) + "".join(_num(getattr(report.errors[m], attr)).rjust(width)
                                                  for m in names))
    for label, attr in (("95% range error", "range95_raw"), ("95% range |error|", "range95_abs")):
        lines.append(label.ljust(26) + "".join(
            f"[{_num(getattr(report.errors[m], attr)[0])}, {_num(getattr(report.errors[m], attr)[1])}]"
            .rjust(width + 10) for m in names))
    lines.append(f"{'false neg. clustered/scattered':26s}" + "".join(
        f"{report.counts[m].false_negative_clustered}/{report.counts[m].false_negative_scattered}"
        .rjust(width) for m in names))
    lines.append(f"total agreements (truth = all methods): {report.total_agreements}; "
                 f"method agreements (all methods alike, all wrong): {report.method_agreements}")
    for a, b in itertools.combinations(names, 2):
        ta, tb = report.errors[a].total_abs_error, report.errors[b].total_abs_error
        if tb and ta:
            lines.append(f"total |error| {a} vs {b}: ({b} - {a})/{b} = {(tb - ta) / tb:+.1%}, "
                         f"({b} - {a})/{a} = {(tb - ta) / ta:+.1%}")
    if report.tests:
        lines += ["", "tests (raw: errors g - p; abs: |g - p|; paired difference = second - first; "
                      "BH within each family of five)"]
        lines.append(f"{'pair':24s}{'family':7s}{'test':20s}{'statistic':>12s}{'p':>12s}{'p (BH)':>12s}")
        for t in report.tests:
            lines.append(f"{(t.method_a + ' vs ' + t.method_b)[:23]:24s}{t.family:7s}{t.test:20s}"
                         f"{_sig(t.statistic):>12s}{_sig(t.p_value):>12s}{_sig(t.p_adjusted):>12s}")
    if report.tcpd:
        lines += ["", "change points (TCPD metrics)"]
        for m, r in report.tcpd.items():
            cover = f", cover {r['cover']:.3f}" if "cover" in r else ""
            lines.append(f"{m}: F1 {r['f1']:.3f} (margin {int(r['margin'])}; P {r['precision']:.3f}, "
                         f"R {r['recall']:.3f}){cover} over {int(r['n_series'])} series")
    return "\n".join(lines) + "\n"


def write_plots(report: EvaluationReport, directory: str | Path) -> list[Path]:
    """Write error histograms, paired-difference plots and agreement bars as PNG and SVG.

    Returns:
        The files written.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from ..atomic import atomic_path
    from matplotlib.figure import Figure

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(fig: Figure, stem: str) -> None:
        FigureCanvasAgg(fig)
        fig.tight_layout()
        for ext in ("png", "svg"):
            path = out / f"{stem}.{ext}"
            with atomic_path(path) as tmp:
                fig.savefig(tmp, format=ext)
            written.append(path)

    names = report.methods
    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    for m in names:
        e = report.errors[m].errors
        if e.size:
            ax.hist(e, bins=40, alpha=0.5, label=f"{m} (n={e.size})")
    ax.set_xlabel("onset error g - p [samples]")
    ax.set_ylabel("series")
    ax.set_title("Onset errors")
    ax.legend()
    save(fig, "error_histograms")

    for a, b in itertools.combinations(names, 2):
        ea, eb = report.errors[a], report.errors[b]
        if ea.series_ids != eb.series_ids or not ea.series_ids:
            continue
        d = eb.errors - ea.errors
        fig = Figure(figsize=(10, 4))
        ax1, ax2 = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
        ax1.scatter(abs(ea.errors), abs(eb.errors), s=8)
        hi = float(max(abs(ea.errors).max(), abs(eb.errors).max(), 1))
        ax1.plot([0, hi], [0, hi], color="grey", lw=1)
        ax1.set_xlabel(f"|error| {a}")
        ax1.set_ylabel(f"|error| {b}")
        ax2.hist(d, bins=40)
        ax2.axvline(0, color="grey", lw=1)
        ax2.set_xlabel(f"paired difference e_{b} - e_{a}")
        ax2.set_ylabel("series")
        fig.suptitle(f"{a} vs {b} on {d.size} series")
        save(fig, f"paired_{_safe(a)}_vs_{_safe(b)}")

    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    keys = ("agreement", "false_positive", "false_negative")
    width = 0.8 / max(len(names), 1)
    for i, m in enumerate(names):
        vals = [getattr(report.counts[m], k) for k in keys]
        ax.bar([j + i * width for j in range(len(keys))], vals, width, label=m)
    ax.set_xticks([j + width * (len(names) - 1) / 2 for j in range(len(keys))])
    ax.set_xticklabels(["agreements", "false positives", "false negatives"])
    ax.set_ylabel(f"series (of {report.n_series})")
    ax.legend()
    save(fig, "agreement_bars")
    return written


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


# ------------------------------------------------------------------ change points alone (TCPD)

CP_CSV_COLUMNS = ("row", *CP_ROW_KEYS, "n_series", "n_cover")


def cp_json_dict(rows: list[dict[str, Any]], summary: dict[str, dict[str, Any]],
                 cp_index: str = "segview") -> dict[str, Any]:
    """``{"series": per-series rows, "methods": {method: means with their counts}, ...}``."""
    return {"series": rows, "methods": summary, "cp_index": cp_index,
            "metrics": "TCPDBench F1 (margin, set-order matching, (1/K)*sum recall) and cover"}


def format_cp_json(rows: list[dict[str, Any]], summary: dict[str, dict[str, Any]],
                   cp_index: str = "segview") -> str:
    return json.dumps(_clean(cp_json_dict(rows, summary, cp_index)), indent=1) + "\n"


def format_cp_csv(rows: list[dict[str, Any]], summary: dict[str, dict[str, Any]]) -> str:
    """Per-series rows (``row=series``), then one ``row=mean`` line per method whose ``n_series``
    and ``n_cover`` say how many series the means are over. Floats are written in full (repr)."""
    buf = io.StringIO()
    w = safecsv.dict_writer(buf, fieldnames=CP_CSV_COLUMNS, lineterminator="\n",
                       extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({"row": "series", **{k: ("" if v is None else v) for k, v in r.items()}})
    for m, s in summary.items():
        w.writerow({"row": "mean", "series_id": "", "method": m, "f1": s["f1"],
                    "precision": s["precision"], "recall": s["recall"],
                    "cover": "" if s["cover"] is None else s["cover"],
                    "n_series": s["n_series"], "n_cover": s["n_cover"]})
    return buf.getvalue()


def format_cp_text(rows: list[dict[str, Any]], summary: dict[str, dict[str, Any]]) -> str:
    """Per-series table, then each method's means with the number of series behind each."""
    if not rows:
        return "no annotated series has a prediction\n"
    margin = next(iter(summary.values()))["margin"]
    lines = [f"change points, TCPD metrics (F1 with margin {margin}, cover)",
             f"{'series':24s}{'method':12s}{'n':>7s}{'annot.':>7s}{'pred.':>7s}{'F1':>10s}"
             f"{'P':>10s}{'R':>10s}{'cover':>10s}"]

    def f(v: Any) -> str:
        return "-" if v is None else f"{v:.6f}"

    for r in rows:
        lines.append(f"{r['series_id'][:23]:24s}{r['method'][:11]:12s}"
                     f"{'-' if r['n_obs'] is None else r['n_obs']:>7}{r['n_annotators']:>7d}"
                     f"{r['n_predicted']:>7d}{f(r['f1']):>10s}{f(r['precision']):>10s}"
                     f"{f(r['recall']):>10s}{f(r['cover']):>10s}")
    lines.append("")
    for m, s in summary.items():
        text = (f"{m}: mean F1 {s['f1']:.6f} (P {s['precision']:.6f}, R {s['recall']:.6f}) over "
                f"{s['n_series']} series")
        text += (f"; mean cover {s['cover']:.6f} over {s['n_cover']} series" if s["n_cover"]
                 else "; cover needs the series lengths (--series)")
        if s["missing"]:
            text += (f"; {len(s['missing'])} annotated series not predicted: "
                     + ", ".join(s["missing"]))
        lines.append(text)
    return "\n".join(lines) + "\n"
