"""Check the system libraries Qt's platform plugin needs, before Qt is imported.

On a fresh Debian/Ubuntu without the X11/xcb client libraries, ``QApplication`` aborts with
"Could not load the Qt platform plugin "xcb"" and names ``xcb-cursor0`` even when other libraries
(``libxcb-icccm4``, ``libxcb-keysyms1``, ...) are what is missing. :func:`check` loads each library
the plugin links against (a ``dlopen``, as the plugin would) and :func:`report` prints the one apt
line that installs them. Without any display (``env -u DISPLAY segview``) Qt aborts with the same
misleading lines: :func:`check` says so in one line instead. This module does not import Qt.
"""
from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Iterable

# soname -> Debian/Ubuntu package (what PySide6's libqxcb.so and Qt's core libraries link against,
# beyond the C/C++ runtime). Installing APT_PACKAGES pulls in every one of them.
XCB_LIBRARIES: dict[str, str] = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
}
# the offscreen plugin (tests, --screenshot without a display) needs only these
OFFSCREEN_LIBRARIES = ("libEGL.so.1", "libGL.so.1", "libfontconfig.so.1", "libfreetype.so.6",
                       "libglib-2.0.so.0", "libdbus-1.so.3", "libX11.so.6", "libxkbcommon.so.0",
                       "libxcb.so.1")

APT_PACKAGES: tuple[str, ...] = tuple(dict.fromkeys(XCB_LIBRARIES.values()))
APT_LINE = "sudo apt-get install " + " ".join(APT_PACKAGES)


def _dlopen(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def platform_name(environ: dict[str, str] | None = None) -> str | None:
    """The Qt platform plugin that will load on Linux (``xcb``, ``offscreen``, ...); None elsewhere
    or for platforms this module does not check (Wayland, eglfs, ...)."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return None
    chosen = env.get("QT_QPA_PLATFORM", "").split(":", 1)[0].split(";", 1)[0].strip()
    if chosen in ("xcb", "offscreen", "minimal"):
        return chosen
    if chosen:
        return None
    if env.get("WAYLAND_DISPLAY") and not env.get("DISPLAY"):
        return None  # Qt picks its Wayland plugin
    return "xcb"


def missing_libraries(platform: str | None = None,
                      loader: Callable[[str], bool] = _dlopen) -> list[str]:
    """Sonames the platform plugin needs that cannot be loaded (``loader`` is injectable in tests)."""
    platform = platform_name() if platform is None else platform
    if platform == "xcb":
        wanted: Iterable[str] = XCB_LIBRARIES
    elif platform in ("offscreen", "minimal"):
        wanted = OFFSCREEN_LIBRARIES
    else:
        return []
    return [lib for lib in wanted if not loader(lib)]


def message(missing: list[str]) -> str:
    pkgs = " ".join(dict.fromkeys(XCB_LIBRARIES.get(m, m) for m in missing))
    return (f"segview: the desktop needs system libraries that are missing: {', '.join(missing)}\n"
            f"  (Debian package{'s' if ' ' in pkgs else ''}: {pkgs})\n"
            f"Install everything the desktop needs with:\n  {APT_LINE}\n"
            "The command line works without them: segview --help")


#: what segview says instead of Qt's abort ("could not connect to display", then a misleading
#: line about xcb-cursor0) when there is no display to open a window on
NO_DISPLAY = ("segview: no display found: set DISPLAY (X11) or WAYLAND_DISPLAY, or use "
              "QT_QPA_PLATFORM=offscreen to run without a screen")


def display_missing(environ: dict[str, str] | None = None) -> bool:
    """True on Linux when Qt would connect to a display server and none is named: no
    ``DISPLAY`` for xcb, no ``WAYLAND_DISPLAY`` for Wayland, neither when ``QT_QPA_PLATFORM`` is
    unset. Platforms that need no display server (offscreen, minimal, eglfs, vnc, ...) never
    miss one."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "").split(":", 1)[0].split(";", 1)[0].strip()
    if chosen == "xcb":
        return not env.get("DISPLAY")
    if chosen.startswith("wayland"):
        return not env.get("WAYLAND_DISPLAY")
    if chosen:
        return False
    return not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY")


def check(platform: str | None = None, loader: Callable[[str], bool] = _dlopen,
          stream: object = None) -> bool:
    """True when a window can open: a display is named (:func:`display_missing`, checked when
    ``platform`` is None, i.e. for the real start-up) and the platform libraries load; else
    print :data:`NO_DISPLAY` or :func:`message` to ``stream`` (stderr)."""
    if platform is None and display_missing():
        print(NO_DISPLAY, file=stream if stream is not None else sys.stderr)
        return False
    missing = missing_libraries(platform, loader)
    if missing:
        print(message(missing), file=stream if stream is not None else sys.stderr)
        return False
    return True
