"""Krun results files (``*.json.bz2``): softdevteam/krun, README "Krun results files" and
``krun/results.py`` (``Results.write_to_file``), checked against Krun at commit a0c8e5b (2021) and
its test file ``krun/tests/quick_results.json.bz2``; warmup_stats' annotated copies
(``*_outliers_w200.json.bz2``, ``..._changepoints.json.bz2``) have the same layout.

A bzip2-compressed JSON object (``json.dumps(indent=1, sort_keys=True)``)::

    {"audit": {"uname": "...", "cpuinfo": "...", ...},   platform information
     "config": "...",                                     the Krun configuration's text
     "wallclock_times": {"bmark:VM:variant": [[t0, t1, ...], [t0, ...], ...]},
                        one list per process execution of in-process iteration times in seconds
     "core_cycle_counts": {...}, "aperf_counts": {...}, "mperf_counts": {...},
                        per-core counters [pexec][core][iteration] (not read: listed in metadata)
     "pexec_flags": {"bmark:VM:variant": ["C", "E", "T", ...]},
                        C completed, E crashed, T timed out (Krun >= 2017)
     "eta_estimates": {...}, "error_flag": bool, "reboots": int, ...}

An empty process execution (``[]``: Krun's record of a crash) or one flagged ``E``/``T`` is a named
:class:`~segview.core.errors.DataFormatWarning`; an empty one yields no series, its index is kept as
a gap. Krun records no harness warm-up (``warmup=0``).

Series: one per process execution; benchmark ``bmark:VM:variant`` (Krun's key), execution index its
position in the list, unit ``s``, lower is better; metadata ``vm``, ``variant``, ``bench``,
``pexec_flag`` and the audit's ``uname``.
"""
from __future__ import annotations

import bz2
import json
from pathlib import Path
from typing import Any

import numpy as np

from ..benchmark import LOWER, execution
from ..errors import DataFormatError
from ..model import Series
from .loadwarn import report
from .readers import NotSeriesFile, check_regular, finite_floats, json_object

_KEYS = ('"wallclock_times"', '"audit"', '"pexec_flags"', '"eta_estimates"')
_COUNTERS = ("core_cycle_counts", "aperf_counts", "mperf_counts")
_FLAGS = {"C": "completed", "E": "crashed", "T": "timed out", "O": "to be re-run"}


def sniff(head: str) -> bool:
    """The decompressed head is a JSON object with one of Krun's top-level keys."""
    text = head.lstrip()
    return text.startswith("{") and any(k in text for k in _KEYS)


def _load(path: Path) -> Any:
    check_regular(path)
    try:
        with bz2.open(path, "rb") as fh:
            raw = fh.read()
    except (OSError, EOFError, ValueError) as err:
        raise DataFormatError(str(path), f"is not a complete bzip2 file ({err}); Krun writes "
                                         "results as .json.bz2") from err
    except MemoryError:
        raise DataFormatError(str(path), "is too large to read into memory") from None
    if not raw.lstrip()[:1] == b"{":
        raise NotSeriesFile(str(path), "a bzip2 file that does not hold a JSON object: not Krun "
                                       "results")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise DataFormatError(str(path), f"the decompressed text is not UTF-8 ({err})") from err
    except json.JSONDecodeError as err:
        raise DataFormatError(str(path), f"invalid JSON inside the bzip2 file: {err.msg}",
                              f"line {err.lineno}, column {err.colno}") from err


def _times(values: Any, path: Path, where: str) -> Any:
    if not isinstance(values, list):
        raise DataFormatError(str(path), f"a process execution must be a list of iteration "
                              f"times, got {type(values).__name__}", where)
    fast = finite_floats(values)
    if fast is not None:
        return fast
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
            raise DataFormatError(str(path), f"iteration time {v!r} is not a finite number",
                                  f"{where}, iteration {i}")
    return np.asarray(values, dtype=np.float64)


def read(path: Path) -> list[Series]:
    """Read a Krun results file (see the module docstring).

    Raises:
        DataFormatError: not bzip2/JSON, no ``wallclock_times`` (names a renamed key when it can),
            or a bad value (names the benchmark key, execution and iteration).
    """
    path = Path(path)
    data = _load(path)
    if not isinstance(data, dict):
        raise DataFormatError(str(path), "a Krun results file holds a JSON object")
    wct = data.get("wallclock_times")
    if wct is None:
        similar = [k for k in data if "time" in k.lower() or "wallclock" in k.lower()]
        hint = f" (found {', '.join(repr(k) for k in similar)}: a renamed field?)" if similar else ""
        raise DataFormatError(str(path), "no 'wallclock_times' object: not a Krun results file"
                              + hint, "top level")
    if not isinstance(wct, dict):
        raise DataFormatError(str(path), "'wallclock_times' must map 'bench:vm:variant' to a list "
                              "of process executions", "wallclock_times")
    flags = json_object(data, "pexec_flags")
    audit = json_object(data, "audit")
    counters = [k for k in _COUNTERS if isinstance(data.get(k), dict) and data[k]]
    run_meta: dict[str, Any] = {}
    if isinstance(audit.get("uname"), str):
        run_meta["uname"] = audit["uname"]
    if counters:
        run_meta["krun_counters_not_read"] = counters
    out: list[Series] = []
    pending: list[tuple[str, str, str]] = []
    for key, pexecs in wct.items():
        where_key = f"wallclock_times[{key!r}]"
        if not isinstance(pexecs, list):
            raise DataFormatError(str(path), "expected a list of process executions", where_key)
        parts = str(key).split(":")
        names = dict(zip(("bench", "vm", "variant"), parts)) if len(parts) == 3 else {}
        key_flags = flags.get(key)
        if not isinstance(key_flags, list):
            key_flags = []
        for k, times in enumerate(pexecs):
            where = f"{where_key}, process execution {k}"
            flag = key_flags[k] if k < len(key_flags) and isinstance(key_flags[k], str) else None
            values = _times(times, path, where)
            if len(values) == 0:
                pending.append((key, f"process execution {k} of {key!r} crashed (no iteration "
                                f"times{', flag ' + repr(flag) if flag else ''}); it is left out",
                                where))
                continue
            if flag in ("E", "T"):
                pending.append((key, f"process execution {k} of {key!r} is flagged {flag!r} "
                                f"({_FLAGS[flag]}); its {len(values)} iterations are kept", where))
            meta = {**run_meta, **names, "source": str(path), "format": "krun",
                    "krun_key": key}
            if flag is not None:
                meta["pexec_flag"] = flag
            out.append(execution(values, benchmark=str(key), index=k, harness="krun", unit="s",
                                 direction=LOWER, metadata=meta))
    if not out:
        raise DataFormatError(str(path), "no process execution with iteration times in "
                              "'wallclock_times'" + (" (every one crashed)" if pending else ""))
    for key, reason, where in pending:
        report(out, key, str(path), reason, where)
    return out
