"""SIGTERM / Ctrl+C reach an idle application: Qt's event loop runs no Python byte code while it
waits, so without the wake-up socket the handler never ran and ``kill PID`` left segview running."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from segview.gui.quit_signals import install

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([sys.argv[0]])
app.setOrganizationName("segview-quit-test")
app.setApplicationName("segview-quit-test")
QTimer.singleShot(0, lambda: print("ready", flush=True))  # the first thing the running loop does
from segview.gui.app import run
code = run([sys.argv[1]])
print("closed", flush=True)
sys.exit(code)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_the_running_explorer_closes_on_a_quit_signal(tmp_path, sig):
    sample = ROOT / "resources" / "sample"
    if not sample.exists():
        pytest.skip("no bundled sample")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(sample)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=str(tmp_path))
    try:
        assert proc.stdout.readline().strip() == "ready"  # blocks until the event loop runs
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-2000:]
    assert "closed" in out  # run() returned: windows closed through closeEvent, not killed


def test_the_handler_runs_while_the_loop_is_idle(qtbot, qapp):
    seen: list[int] = []
    uninstall = install(qapp, on_signal=seen.append)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        qtbot.waitUntil(lambda: seen == [signal.SIGTERM], timeout=5000)
    finally:
        uninstall()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL or callable(
        signal.getsignal(signal.SIGTERM))
