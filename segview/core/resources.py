"""Where segview's bundled resources (sample data, icons) are."""
from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The ``resources/`` folder: beside the package in a checkout or editable install, or under
    ``<prefix>/share/segview/resources`` in a regular install, or next to a frozen executable."""
    candidates = [Path(__file__).resolve().parents[2] / "resources",
                  Path(sys.prefix) / "share" / "segview" / "resources"]
    if getattr(sys, "frozen", False):
        candidates.insert(0, Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent)) / "resources")
    for c in candidates:
        if (c / "sample").is_dir():
            return c
    return candidates[0]


def sample_dir() -> Path:
    """The bundled sample dataset (ten JMH series and their labels)."""
    return resources_dir() / "sample" / "jmh"
