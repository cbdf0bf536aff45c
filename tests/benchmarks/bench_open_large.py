"""Opening large inputs in the explorer: total time and the longest event-loop stall.

    python tests/benchmarks/bench_open_large.py [--make] PATH [PATH ...]

``--make`` first writes the two issue-17 inputs if absent: /tmp/big/big.csv (10 million points,
one column) and /tmp/many (5,000 JMH fork lists of 300 points). For each path the explorer opens it
(File > Open, as a user would: ``open_paths``), and a 10 ms QTimer probe records the longest gap
between its ticks until the first series is on screen (the dataset table filled and the plot
painted). A gap is a time the window could not repaint or react: the freeze a user sees.
Offscreen, in-process detectors, no methods enabled (only loading and drawing are measured).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("SEGVIEW_IN_PROCESS", "1")


def make_inputs() -> None:
    import numpy as np
    big = Path("/tmp/big/big.csv")
    if not big.exists():
        big.parent.mkdir(parents=True, exist_ok=True)
        v = np.random.default_rng(0).standard_normal(10_000_000)
        np.savetxt(big, v, fmt="%.6g", header="value", comments="")
    many = Path("/tmp/many")
    if not many.exists():
        many.mkdir(parents=True)
        rng = np.random.default_rng(1)
        for k in range(5000):
            forks = [[float(f"{x:.6g}") for x in 1 + 0.01 * rng.standard_normal(300)]]
            (many / f"s{k:04d}.json").write_text(json.dumps(forks))


class StallProbe:
    """The longest gap between ticks of a 10 ms timer on the GUI thread."""

    def __init__(self, phase=lambda: "") -> None:
        from PySide6.QtCore import QTimer
        self.phase = phase  # what the window was doing at the tick that ended a gap
        self.last = time.perf_counter()
        self.longest = 0.0
        self.where = ""
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        if now - self.last > self.longest:
            self.longest = now - self.last
            self.where = self.phase()
        self.last = now

    def start(self) -> None:
        self.last = time.perf_counter()
        self.longest = 0.0
        self.where = ""
        self.timer.start()

    def stop(self) -> float:
        self._tick()
        self.timer.stop()
        return self.longest


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", default=["/tmp/many", "/tmp/big/big.csv"])
    ap.add_argument("--make", action="store_true")
    args = ap.parse_args()
    if args.make:
        make_inputs()
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([])
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings
    st = Settings()
    st.set_enabled_methods(set())
    w = MainWindow(st)
    w.resize(1400, 860)
    w.show()
    app.processEvents()
    def phase() -> str:
        loader = w.__dict__.get("_loader")
        return "while loading" if loader is not None and loader.busy() else "installing/drawing"

    probe = StallProbe(phase)
    for path in args.paths:
        probe.start()
        t0 = time.perf_counter()
        c0 = time.process_time()
        # one event-loop turn first, so that a synchronous open_paths shows up as a stall
        done = {"flag": False}

        def go() -> None:
            w.open_paths([path])
            done["flag"] = True
        from PySide6.QtCore import QTimer
        QTimer.singleShot(0, go)
        deadline = time.perf_counter() + 600
        while time.perf_counter() < deadline:
            app.processEvents()
            loading = getattr(w, "loading", None)
            if done["flag"] and not (loading is not None and loading.busy()) and w.current is not None:
                break
            time.sleep(0.002)
        w.plot_widget.viewport().repaint()
        app.processEvents()
        stall = probe.stop()
        wall = time.perf_counter() - t0
        n = len(w.series)
        print(f"{path}: {n} series, first on screen after {wall:.2f} s (CPU {time.process_time() - c0:.2f} s), "
              f"longest event-loop stall {stall:.3f} s (ended {probe.where})", flush=True)
    w.close()
    sys.exit(0)


if __name__ == "__main__":
    main()
