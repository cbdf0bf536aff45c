"""Open the explorer for docs/strength-lanes.png and docs/penalty-path.png (issue 28).

    PYTHONPATH=. python docs/strength_path_demo.py --state /tmp/demo-state [--series s0141]

The bundled sample's series with pelt, binseg, amoc and bocpd on (their ticks as tall as their
strengths). The script writes what a screenshot driver needs into the ``--state`` folder, in
screen coordinates: ``lanes`` (every method drew; the pelt lane's strongest tick) and, after a file
``go-path`` appears there, opens the Penalty path dock for pelt and writes ``path`` (each point of
the path; the elbow's index), and ``chosen`` once a click on a point has re-run the pelt lane.
Taken on Xvfb + openbox with ``QT_QPA_PLATFORM=xcb``; clicks with xdotool, images with ``import``.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--state", required=True)
    ap.add_argument("--series", default="s0141")
    ap.add_argument("--methods", default="pelt,binseg,amoc,bocpd")
    args = ap.parse_args()
    from PySide6.QtCore import QPointF, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from segview.core.resources import sample_dir
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    state = Path(args.state)
    state.mkdir(parents=True, exist_ok=True)
    methods = args.methods.split(",")
    app = QApplication(sys.argv)
    win = MainWindow(Settings(), persist=False)  # the user's own settings stay as they are
    for spec in win.specs:
        win.set_method_enabled(spec.name, spec.name in methods)
    win.resize(1500, 940)
    win.show()
    drawn: set[str] = set()
    phase = {"name": "lanes"}

    def global_of(widget, plot, x: float, y: float) -> list[int]:
        p = widget.mapToGlobal(widget.mapFromScene(plot.vb.mapViewToScene(QPointF(x, y))))
        return [p.x(), p.y()]

    def on_overlay(name: str) -> None:
        drawn.add(name)
        if phase["name"] == "lanes" and set(methods) <= drawn:
            phase["name"] = "wait"
            QTimer.singleShot(1500, write_lanes)
        elif phase["name"] == "clicked" and name == "pelt":
            phase["name"] = "done"
            QTimer.singleShot(800, lambda: (state / "chosen").write_text("1"))

    def write_lanes() -> None:
        lane = win.lanes["pelt"]
        i = int(lane.strengths.argmax()) if lane.strengths is not None and lane.strengths.size else 0
        xy = global_of(win.plot_widget, win.lanes.plot, float(lane.cps[i]), lane.row + 0.8)
        (state / "lanes").write_text(json.dumps({"tick": xy}))
        poll.start(300)

    def check_go() -> None:
        if (state / "go-path").exists():
            poll.stop()
            phase["name"] = "path"
            win.show_penalty_path("pelt")

    def on_path(_key: object, path: object) -> None:
        panel = win.penalty_panel
        QTimer.singleShot(1200, lambda: write_path(panel, path))

    def write_path(panel, path) -> None:
        points = [global_of(panel.plot_widget, panel.plot, *panel.point_position(i))
                  for i in range(len(path))]
        phase["name"] = "clicked"
        (state / "path").write_text(json.dumps({"points": points, "elbow": path.elbow,
                                                "n_changes": path.n_changes.tolist()}))

    poll = QTimer()
    poll.timeout.connect(check_go)
    win.overlay_updated.connect(on_overlay)
    win.runner.path_ready.connect(on_path)
    win.open_paths([str(sample_dir())])
    QTimer.singleShot(1500, lambda: win.dataset_panel.select(args.series))
    QTimer.singleShot(2500, lambda: win.resizeDocks([win.docks["Series"]], [260],
                                                    Qt.Orientation.Horizontal))
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
