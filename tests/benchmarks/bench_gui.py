"""GUI responsiveness benchmark (a script; run ``python tests/benchmarks/bench_gui.py``).

Reports, with every fast registered detector enabled on a 3,000-point series:

* slider change -> redrawn overlay: median and max over repeated changes of one parameter per
  detector (time from ``QSlider.setValue`` until the overlay items were updated and the plot
  repainted); target median < 50 ms;
* longest event-loop stall while all detectors run: a QTimer ticks every 5 ms on the GUI thread,
  the stall is the largest gap between ticks minus 5 ms; target < 30 ms. Measured with the
  detectors in worker processes (the explorer's default) and, as the reference in the same
  process, with every detector run in the pool threads (``SEGVIEW_IN_PROCESS=1``);
* time to first paint of a 1,000,000-point series, and as a ratio to a 10,000-point reference
  measured the same way in the same process.

"Fast" = a warm run on the series takes under ``--fast-ms`` (default 1000 ms); slower detectors
are listed and skipped (they are meant to run with progress, not live). Warm-up runs (numba
compilation) are excluded from the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from PySide6.QtCore import QEventLoop, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from segview.core import registry  # noqa: E402
from segview.core.api import run_spec  # noqa: E402
from segview.core.model import Series  # noqa: E402


def wait_for(signal, predicate=lambda *a: True, timeout_ms: int = 120_000) -> bool:
    """Spin an event loop until ``signal`` fires with args satisfying ``predicate``."""
    loop = QEventLoop()
    hit = {"ok": False}

    def on(*args):
        if predicate(*args):
            hit["ok"] = True
            loop.quit()

    signal.connect(on)
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    signal.disconnect(on)
    return hit["ok"]


def pause(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def settle(win, ms: int = 120) -> None:
    """Let the runner's rate-limit window expire so the next change starts at once."""
    if win.runner.is_busy():
        wait_for(win.runner.idle)
    pause(ms)


def pick_slider(win, spec):
    """A decide-stage number parameter with a slider (prepare-stage only when nothing else)."""
    editors = win.param_panel.boxes[spec.name].editors
    ranked = sorted(spec.params, key=lambda p: p.stage == "prepare")
    for p in ranked:
        ed = editors[p.name]
        if ed.slider is not None and ed.slider.isEnabled():
            return p, ed
    return None, None


def fast_specs(series: Series, fast_ms: float) -> tuple[list, dict]:
    fast, slow = [], {}
    for spec in registry.all_specs():
        if spec.slow:
            slow[spec.name] = "declared slow"
            continue
        t = time.perf_counter()
        run_spec(spec, series, spec.defaults())  # warm-up (numba compilation)
        if (time.perf_counter() - t) * 1000 > 20 * fast_ms:  # hopeless even after compilation
            slow[spec.name] = f"{(time.perf_counter() - t) * 1000:.0f} ms for the first run"
            continue
        t = time.perf_counter()
        run_spec(spec, series, spec.defaults())
        ms = (time.perf_counter() - t) * 1000
        if ms > fast_ms:
            slow[spec.name] = f"{ms:.0f} ms per run"
        else:
            fast.append(spec)
    return fast, slow


def bench_slider(win, specs, repeats: int) -> dict:
    out = {}
    for spec in specs:
        p, ed = pick_slider(win, spec)
        if ed is None:
            continue
        base = ed.slider.value()
        other = base + 1 if base < ed.slider.maximum() else base - 1
        times = []
        for k in range(repeats):
            settle(win)
            tick = other if k % 2 == 0 else base
            t0 = time.perf_counter()
            ed.slider.setValue(tick)
            if not wait_for(win.overlay_updated, lambda name: name == spec.name, 60_000):
                break
            win.plot_widget.viewport().repaint()  # the view's own repaint() paints no item
            times.append((time.perf_counter() - t0) * 1000)
        if times:
            out[spec.name] = {"param": p.name, "median_ms": statistics.median(times),
                              "max_ms": max(times), "n": len(times)}
    return out


def idle_stall() -> float:
    """The same measurement with nothing happening: the machine's scheduling noise."""
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    pause(1000)
    timer.stop()
    return float(np.diff(ticks).max() * 1000 - 5.0)


def bench_stall(win, app) -> tuple[float, float]:
    """(longest stall while detectors run, longest switch) over three series switches.

    The gap that contains the switch itself (loading the new series into the plots and its first
    paint) is reported separately; every later gap until the runner is idle counts as a stall
    while detectors run and their overlays are drawn.
    """
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    worst, worst_switch = 0.0, 0.0
    for _ in range(3):
        ticks.clear()
        timer.start()
        pause(50)
        t_switch = time.perf_counter()
        win.next_series()
        if win.runner.is_busy():
            wait_for(win.runner.idle)
        pause(50)
        timer.stop()
        t = np.asarray(ticks)
        gaps = np.diff(t) * 1000 - 5.0
        after = np.flatnonzero(t[1:] > t_switch)
        if after.size:
            worst_switch = max(worst_switch, float(gaps[after[0]]))
            rest = gaps[after[1:]]
            if rest.size:
                worst = max(worst, float(rest.max()))
    return worst, worst_switch


def first_paint_ms(win, n: int) -> float:
    rng = np.random.default_rng(0)
    s = Series(np.cumsum(rng.normal(size=n)) + 0.1 * rng.normal(size=n), id=f"big{n}")
    t0 = time.perf_counter()
    win.set_dataset([s])
    win.plot_widget.viewport().repaint()
    return (time.perf_counter() - t0) * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=12)
    ap.add_argument("--fast-ms", type=float, default=1000.0)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)
    app = QApplication.instance() or QApplication([])
    app.setOrganizationName("segview-bench")
    from segview.gui.gcguard import install, pin_none_refcount
    pin_none_refcount()  # as segview.gui.app.run does
    install()
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())

    from segview.core.resources import sample_dir
    from segview.core.io import load
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    dataset = list(load(sample_dir()))
    series = [s for s in dataset if len(s) == 3000]
    fast, slow = fast_specs(series[0], args.fast_ms)
    settings = Settings()
    settings.set_enabled_methods({s.name for s in fast})
    win = MainWindow(settings, specs=fast, persist=False)
    win.resize(1500, 900)
    win.show()
    win.set_dataset(series)
    settle(win)
    slider = bench_slider(win, fast, args.repeats)
    stall, switch = bench_stall(win, app)
    processes, win.runner.processes = win.runner.processes, None  # reference: pool threads
    settle(win)
    stall_threads, switch_threads = bench_stall(win, app)
    win.runner.processes = processes
    noise = idle_stall()
    for s in fast:
        win.set_method_enabled(s.name, False)
    ref = statistics.median(first_paint_ms(win, 10_000) for _ in range(3))
    big = statistics.median(first_paint_ms(win, 1_000_000) for _ in range(3))
    win.close()
    medians = [v["median_ms"] for v in slider.values()]
    report = {
        "fast_detectors": [s.name for s in fast], "skipped": slow,
        "slider_to_overlay": slider,
        "slider_to_overlay_median_ms": statistics.median(medians) if medians else None,
        "slider_to_overlay_worst_median_ms": max(medians) if medians else None,
        "max_event_loop_stall_ms": stall, "series_switch_ms": switch, "idle_stall_ms": noise,
        "in_thread_reference": {"max_event_loop_stall_ms": stall_threads,
                                "series_switch_ms": switch_threads,
                                "stall_ratio_processes_to_threads": stall / stall_threads
                                if stall_threads else None},
        "first_paint_ms": {"n=10000": ref, "n=1000000": big, "ratio": big / ref if ref else None},
    }
    print(f"fast detectors: {', '.join(report['fast_detectors'])}")
    for name, why in slow.items():
        print(f"skipped {name}: {why}")
    for name, v in slider.items():
        print(f"  {name:10s} {v['param']:>16s}: median {v['median_ms']:6.1f} ms, "
              f"max {v['max_ms']:6.1f} ms (n={v['n']})")
    print(f"slider -> redrawn overlay, median over detectors: "
          f"{report['slider_to_overlay_median_ms']:.1f} ms (target < 50)")
    print(f"longest event-loop stall while detectors run: {stall:.1f} ms (target < 30); "
          f"the series switch itself: {switch:.1f} ms; with nothing running: {noise:.1f} ms")
    print(f"  reference, detectors in the pool threads: stall {stall_threads:.1f} ms, switch "
          f"{switch_threads:.1f} ms (processes/threads stall ratio "
          f"{report['in_thread_reference']['stall_ratio_processes_to_threads']:.2f})")
    print(f"first paint: 10k points {ref:.1f} ms, 1M points {big:.1f} ms "
          f"(ratio {report['first_paint_ms']['ratio']:.1f})")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
