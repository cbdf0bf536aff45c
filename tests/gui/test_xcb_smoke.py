"""The real desktop on the ``xcb`` platform under Xvfb (not offscreen), and the start-up check that
names the missing system libraries instead of Qt's misleading plugin message."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from segview.gui import qtdeps

ROOT = Path(__file__).resolve().parents[2]


def test_missing_library_prints_the_apt_line():
    """A fake loader that cannot find libxcb-icccm: the check fails and names package and line."""
    out = io.StringIO()
    ok = qtdeps.check("xcb", loader=lambda so: so != "libxcb-icccm.so.4", stream=out)
    text = out.getvalue()
    assert not ok
    assert "libxcb-icccm.so.4" in text and "libxcb-icccm4" in text
    assert qtdeps.APT_LINE in text
    assert "sudo apt-get install" in qtdeps.APT_LINE and "libxcb-keysyms1" in qtdeps.APT_LINE


def test_all_libraries_present_passes_silently():
    out = io.StringIO()
    assert qtdeps.check("xcb", loader=lambda so: True, stream=out)
    assert out.getvalue() == ""


def test_offscreen_needs_fewer_libraries_and_wayland_is_not_checked():
    assert qtdeps.missing_libraries("offscreen", loader=lambda so: "xcb-icccm" not in so) == []
    assert qtdeps.platform_name({"QT_QPA_PLATFORM": "offscreen"}) in ("offscreen", None)
    if sys.platform.startswith("linux"):
        assert qtdeps.platform_name({"WAYLAND_DISPLAY": "wayland-0"}) is None
        assert qtdeps.platform_name({"DISPLAY": ":0"}) == "xcb"


def test_readme_names_the_apt_line():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert qtdeps.APT_LINE in readme


@pytest.fixture
def xvfb_display():
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("Xvfb is not installed")
    for num in range(151, 181):
        if not Path(f"/tmp/.X{num}-lock").exists() and not Path(f"/tmp/.X11-unix/X{num}").exists():
            break
    else:
        pytest.skip("no free X display number")
    proc = subprocess.Popen([xvfb, f":{num}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not Path(f"/tmp/.X11-unix/X{num}").exists():  # the server creates its socket when ready
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.skip("Xvfb did not start")
        time.sleep(0.05)
    yield f":{num}"
    proc.terminate()
    proc.wait(10)


def test_real_app_on_xcb_opens_explorer_and_annotator(xvfb_display):
    """Fails (exit 1 with the apt line) when the README's system libraries are missing."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=xvfb_display, QT_QPA_PLATFORM="xcb")
    done = subprocess.run([sys.executable, "-m", "segview.gui.smoke"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "platform xcb" in done.stdout and "-> ok" in done.stdout


def test_ci_installs_exactly_the_readme_packages():
    """.ci/run reads the package list out of qtdeps.py; its extraction must see every package."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    line = next(ln for ln in script.splitlines() if ln.startswith("qt_pkgs="))
    if shutil.which("bash") is None or shutil.which("sed") is None:
        pytest.skip("bash/sed not available")
    got = subprocess.run(["bash", "-c", f"{line}; echo $qt_pkgs"], cwd=ROOT, capture_output=True,
                         text=True, timeout=30).stdout.split()
    assert got == list(qtdeps.APT_PACKAGES)
