"""Prometheus text exposition format: each metric and label set is a benchmark, each scrape a point.

Format ("Exposition formats", text format version 0.0.4, prometheus.io/docs/instrumenting/
exposition_formats; checked against the output of the Python client ``prometheus_client`` 0.26.0
``generate_latest()``)::

    # HELP http_request_duration_seconds Request latency.
    # TYPE http_request_duration_seconds summary
    metric_name{label="value",other="x"} 0.25 [timestamp_ms]

* A sample line is a metric name (``[a-zA-Z_:][a-zA-Z0-9_:]*``), optional labels in braces
  (values in double quotes, ``\\\\``, ``\\"`` and ``\\n`` escaped), a float value (``NaN``,
  ``+Inf``, ``-Inf`` allowed) and an optional timestamp in milliseconds since the epoch.
* ``# HELP`` and ``# TYPE`` lines describe a metric; other ``#`` lines are comments.

Several scrapes written one after the other (``while sleep 1; do curl -s host:9100/metrics >>
scrapes.prom; done``) give each metric+labels its series: one point per scrape, in file order
(timestamps, when every point has one, become x values in seconds). A NaN or infinite sample (a
summary with no observations) is left out of its series with a warning (never silently). Unit: a
gauge or untyped metric whose name ends in ``_seconds`` is in seconds (lower is better);
counters (``_total``), ``_sum``, ``_count`` and ``_bucket`` samples are cumulative and carry no
unit or direction.
"""
from __future__ import annotations

import math
import re
import warnings
from pathlib import Path
from typing import Any

from ..benchmark import execution
from ..errors import DataFormatError, SegviewWarning
from ..model import Series
from .readers import read_text

NAME = "prometheus"
_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABELS = r"\{(?:[^\"}]|\"(?:[^\"\\]|\\.)*\")*\}"
_VALUE = r"[+-]?(?:[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+\.|Inf|inf|NaN|nan)"
SAMPLE = re.compile(rf"^({_NAME})\s*({_LABELS})?\s+({_VALUE})(?:\s+(-?[0-9]+))?\s*$")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
_CUMULATIVE = ("_total", "_sum", "_count", "_bucket", "_created")

EXAMPLE = """# HELP bench_iteration_seconds Time of the last benchmark iteration.
# TYPE bench_iteration_seconds gauge
bench_iteration_seconds{benchmark="fib"} 0.0123
bench_iteration_seconds{benchmark="sort"} 0.0456"""


def sniff(head: str) -> bool:
    lines = [ln.strip() for ln in head.splitlines() if ln.strip()]
    if len(lines) > 1 and not head.endswith("\n"):
        lines = lines[:-1]
    samples = 0
    for ln in lines[:200]:
        if ln.startswith("#"):
            continue
        if not SAMPLE.match(ln):
            return False
        samples += 1
    return samples > 0


def _labels(text: str, path: Path, line: int) -> dict[str, str]:
    inner = text[1:-1].strip()
    out: dict[str, str] = {}
    pos = 0
    while pos < len(inner):
        m = _LABEL.match(inner, pos)
        if not m or m.end() == pos:
            raise DataFormatError(str(path), f"malformed labels {text!r}", f"line {line}")
        out[m.group(1)] = (m.group(2).replace("\\\\", "\x00").replace('\\"', '"')
                           .replace("\\n", "\n").replace("\x00", "\\"))
        pos = m.end()
    return out


def _key(metric: str, labels: dict[str, str]) -> str:
    if not labels:
        return metric
    return metric + "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"


def read(path: Path) -> list[Series]:
    """Read concatenated Prometheus scrapes; raises DataFormatError naming the file and line."""
    path = Path(path)
    text = read_text(path)
    types: dict[str, str] = {}
    helps: dict[str, str] = {}
    points: dict[str, list[tuple[float, float | None]]] = {}
    info: dict[str, tuple[str, dict[str, str]]] = {}
    dropped: dict[str, list[str]] = {}
    for line_no, raw in enumerate(text.splitlines(), start=1):
        ln = raw.strip()
        if not ln:
            continue
        if ln.startswith("#"):
            parts = ln[1:].strip().split(None, 2)
            if len(parts) == 3 and parts[0] == "TYPE":
                types[parts[1]] = parts[2].split()[0]
            elif len(parts) >= 2 and parts[0] == "HELP":
                helps[parts[1]] = parts[2] if len(parts) > 2 else ""
            continue
        m = SAMPLE.match(ln)
        if not m:
            raise DataFormatError(str(path), "not a Prometheus sample (metric{labels} value "
                                             "[timestamp])", f"line {line_no}")
        metric, labels_text, value, stamp = m.groups()
        labels = _labels(labels_text, path, line_no) if labels_text else {}
        key = _key(metric, labels)
        info.setdefault(key, (metric, labels))
        v = float(value)
        if not math.isfinite(v):
            dropped.setdefault(key, []).append(f"line {line_no}: {value}")
            points.setdefault(key, [])
            continue
        points.setdefault(key, []).append((v, int(stamp) / 1000.0 if stamp else None))
    if not info:
        raise DataFormatError(str(path), "no samples (only comments)")
    out = []
    for key, pts in points.items():
        metric, labels = info[key]
        notes = []
        if key in dropped:
            d = dropped[key]
            notes.append(f"{path}: {key}: {len(d)} non-finite sample(s) left out "
                         f"({'; '.join(d[:3])}{'...' if len(d) > 3 else ''})")
        for note in notes:
            warnings.warn(note, SegviewWarning, stacklevel=2)
        if not pts:
            continue
        family = next((f for f in (metric, *(metric[: -len(s)] for s in _CUMULATIVE
                                             if metric.endswith(s))) if f in types), metric)
        kind = types.get(family, "untyped")
        cumulative = kind == "counter" or metric.endswith(_CUMULATIVE)
        unit = "s" if metric.endswith("_seconds") and not cumulative else ""
        meta: dict[str, Any] = {"source": str(path), "format": NAME, "metric": metric, "type": kind}
        if family in helps:
            meta["help"] = helps[family]
        if notes:
            meta["load_warnings"] = notes
        xs = [p[1] for p in pts if p[1] is not None]
        out.append(execution([p[0] for p in pts], benchmark=key, index=0, harness="prometheus",
                             unit=unit, params=labels, metadata=meta, id=key,
                             x=xs if len(xs) == len(pts) else None))
    if not out:
        raise DataFormatError(str(path), "every sample is NaN or infinite")
    return out
