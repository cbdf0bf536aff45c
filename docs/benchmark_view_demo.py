"""Open the explorer on a synthetic demo benchmark (docs/benchmark-view-1280x720.png and -overlay.png;
docs/benchmark-view.png and docs/warmup-panel.png are the real JVM warmup_stats fixture,
``segview gui tests/data/harness/warmup_stats/hotspot_nbody.csv``, benchmark row clicked).

    PYTHONPATH=. python docs/benchmark_view_demo.py [--executions 8] [--iterations 600]

The data are synthetic but shaped like a JIT-compiled benchmark's process executions: each
execution starts slow and warms up over a different number of iterations (the harness marks its
first 50 as warm-up, shaded), one settles on a slower level after a mid-run shift, one never
settles. A second, single-execution benchmark shows that such a benchmark stays a plain row.
The window opens on the benchmark's row (the benchmark view).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402


def demo_executions(n_exec: int, n_iter: int) -> list:
    from segview.core.benchmark import execution

    rng = np.random.default_rng(2026)
    out = []
    for k in range(n_exec):
        t = np.arange(n_iter, dtype=float)
        tau = 15 + 12 * k  # warm-up length differs between process executions
        v = 2.0 + 6.0 * np.exp(-t / tau) + 0.08 * rng.standard_normal(n_iter)
        if k == 2:
            v[n_iter // 2:] += 0.6  # settles, then shifts to a slower mode
        if k == n_exec - 1:
            v += 0.5 * np.sin(t / 25.0)  # never settles
        v[rng.integers(0, n_iter, 4)] += 2.5  # a few GC pauses
        out.append(execution(v, benchmark="org.demo.Json.parse[size=1k]", index=k,
                             harness="jmh", unit="us/op", warmup=50))
    single = execution(1.0 + 0.05 * rng.standard_normal(n_iter), benchmark="org.demo.Noop.run",
                       index=0, harness="jmh", unit="ns/op", warmup=50)
    return out + [single]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--executions", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=600)
    ap.add_argument("--overlay", action="store_true")
    ap.add_argument("--methods", default="kbkssd,pelt,binseg")
    ap.add_argument("--series-width", type=int, default=760)
    args = ap.parse_args()
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    app = QApplication(sys.argv)
    win = MainWindow(Settings(), persist=False)  # the user's own settings stay as they are
    for spec in win.specs:  # a few quick methods, so the lanes stay readable
        win.set_method_enabled(spec.name, spec.name in args.methods.split(","))
    win.show()
    QTimer.singleShot(800, lambda: win.resizeDocks([win.docks["Series"]], [args.series_width],
                                                   Qt.Orientation.Horizontal))
    series = demo_executions(args.executions, args.iterations)
    win.set_dataset(series)
    QTimer.singleShot(300, lambda: win.dataset_panel.select_benchmark(
        "org.demo.Json.parse[size=1k]"))
    if args.overlay:
        QTimer.singleShot(600, lambda: win.bench_view.set_overlaid(True))
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
