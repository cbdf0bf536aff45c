"""Benchmark view responsiveness (a script; run ``python tests/benchmarks/bench_benchmark_view.py``).

Issue 26 target: the benchmark view of 30 executions x 3,000 iterations stays interactive, a pan
or zoom repaints in under 50 ms. Builds one benchmark of 30 executions (3,000 iterations each,
the first 50 marked as the harness's warm-up), opens it in the explorer (1920x1080 window) with
fast detectors enabled, waits until every execution's lanes are drawn, then times

* pan: shift the shared x range by 1/20 of its width, then repaint what the user sees (the
  scroll area's viewport: the executions in view) synchronously;
* zoom: scale the x range by 0.8 / 1.25 around its centre, same repaint;
* the same in a window tall enough to show all 30 executions at once (the worst case: every
  row repainted);
* pan and zoom in the overlaid mode.

Each figure: median and max over ``--repeats`` changes (after a warm-up of 5), wall clock.
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


def make_benchmark(n_exec: int, n_iter: int, warmup: int):
    from segview.core.benchmark import execution

    rng = np.random.default_rng(26)
    out = []
    for k in range(n_exec):
        v = 1.0 + 0.05 * rng.standard_normal(n_iter)
        v[:warmup + 10 * k] += np.linspace(3.0, 0.0, warmup + 10 * k)  # warm-up decaying
        v[n_iter // 2 + 20 * k:] += 0.3  # a level shift in the middle
        out.append(execution(v, benchmark="Bench.run", index=k, harness="jmh", unit="ms/op",
                             warmup=warmup))
    return out


def pause(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def timed(change, paint, repeats: int) -> tuple[float, float]:
    for _ in range(5):
        change(0)
        paint()
    times = []
    for i in range(repeats):
        t0 = time.perf_counter()
        change(i)
        paint()
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times), max(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--executions", type=int, default=30)
    ap.add_argument("--iterations", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=40)
    ap.add_argument("--methods", default="kbkssd,pelt,binseg")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
    app = QApplication.instance() or QApplication([])
    app.setOrganizationName("segview-bench")
    app.setApplicationName("segview-bench")
    from segview.core import registry
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    methods = [m for m in args.methods.split(",") if m]
    settings = Settings()
    settings.set_enabled_methods(set(methods))
    win = MainWindow(settings, specs=registry.all_specs(), persist=False)
    win.resize(1920, 1080)
    win.show()
    execs = make_benchmark(args.executions, args.iterations, 50)
    win.set_dataset(execs + [execs[0].__class__(np.arange(10.0), id="other")])
    ids = {s.id for s in execs}
    want = {(i, m) for i in ids for m in methods}
    drawn: set = set()
    loop = QEventLoop()

    def on_drawn(sid: str, m: str) -> None:
        drawn.add((sid, m))
        if want <= drawn:
            loop.quit()

    win.benchmark_result_drawn.connect(on_drawn)
    t0 = time.perf_counter()
    win.dataset_panel.select_benchmark("Bench.run")
    QTimer.singleShot(600_000, loop.quit)
    if not want <= drawn:
        loop.exec()
    t_results = time.perf_counter() - t0
    view = win.bench_view
    plot = view.plots()[0]
    lo, hi = plot.vb.viewRange()[0]
    width = hi - lo

    def pan(i: int) -> None:
        a = lo + (i % 10) * width / 20
        plot.setXRange(a, a + width * 0.5, padding=0)

    def zoom(i: int) -> None:
        f = 0.8 if i % 2 == 0 else 1.25
        a, b = plot.vb.viewRange()[0]
        c, h = (a + b) / 2, (b - a) / 2 * f
        plot.setXRange(c - h, c + h, padding=0)

    visible = view.scroll.viewport().repaint
    res = {"executions": args.executions, "iterations": args.iterations, "methods": methods,
           "results_drawn_s": round(t_results, 2),
           "rows_in_view": sum(1 for r in view.rows[:args.executions]
                               if r.plot.sceneBoundingRect().top()
                               < view.scroll.viewport().height()),
           "viewport_px": [view.scroll.viewport().width(), view.scroll.viewport().height()]}
    for name, change in (("pan", pan), ("zoom", zoom)):
        med, mx = timed(change, visible, args.repeats)
        res[name + "_ms"] = {"median": round(med, 1), "max": round(mx, 1)}
    # worst case: a window tall enough to show every execution at once (no scrolling)
    win.resize(1920, view.plot_widget.minimumHeight() + 400)
    pause(300)
    res["tall_window_px"] = [view.scroll.viewport().width(), view.scroll.viewport().height()]
    res["tall_rows_in_view"] = sum(1 for r in view.rows[:args.executions]
                                   if r.plot.sceneBoundingRect().bottom()
                                   <= view.scroll.viewport().height())
    for name, change in (("pan_all_rows_in_view", pan), ("zoom_all_rows_in_view", zoom)):
        med, mx = timed(change, visible, args.repeats)
        res[name + "_ms"] = {"median": round(med, 1), "max": round(mx, 1)}
    view.set_overlaid(True)
    plot = view.plots()[0]
    lo, hi = plot.vb.viewRange()[0]
    width = hi - lo
    for name, change in (("overlay_pan", pan), ("overlay_zoom", zoom)):
        med, mx = timed(change, view.scroll.viewport().repaint, args.repeats)
        res[name + "_ms"] = {"median": round(med, 1), "max": round(mx, 1)}
    print(json.dumps(res, indent=1))
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
