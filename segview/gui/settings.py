"""Persistent GUI settings (QSettings): layout, enabled methods, parameters per method, recent files.

Parameters are stored as raw JSON per method and re-coerced on load: an unknown parameter is dropped
with a warning and a missing one takes its faithful default, so saved settings survive detector
updates.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from ..core.errors import ParameterError
from ..core.params import Params
from ..core.registry import DetectorSpec

log = logging.getLogger(__name__)
MAX_RECENT = 10


def _inside_package(path: Path) -> bool:
    """``path`` lies in the installed package or its bundled resources."""
    from ..core.resources import resources_dir

    try:
        p = path.resolve()
    except OSError:
        return False
    roots = (Path(__file__).resolve().parents[1], resources_dir().resolve())
    return any(p == r or r in p.parents for r in roots)


class Settings:
    """Typed access to the application's QSettings (a custom QSettings can be injected in tests)."""

    def __init__(self, qsettings: QSettings | None = None) -> None:
        self.q = qsettings if qsettings is not None else QSettings()

    # layout
    def save_layout(self, geometry: QByteArray, state: QByteArray) -> None:
        self.q.setValue("window/geometry", geometry)
        self.q.setValue("window/state", state)

    def layout(self) -> tuple[QByteArray | None, QByteArray | None]:
        return self.q.value("window/geometry"), self.q.value("window/state")

    # methods
    def _names(self, key: str) -> set[str] | None:
        """A set of names saved as a JSON list under ``key``; None when never saved or unreadable."""
        raw = self.q.value(key)
        if raw is None:
            return None
        try:
            return set(json.loads(str(raw)))
        except (ValueError, TypeError):
            return None

    def enabled_methods(self) -> set[str] | None:
        """Names of the enabled methods, or None when never saved (then all are enabled)."""
        return self._names("methods/enabled")

    def set_enabled_methods(self, names: set[str]) -> None:
        self.q.setValue("methods/enabled", json.dumps(sorted(names)))

    def default_methods_seen(self) -> set[str] | None:
        """The methods a fresh explorer enabled when this user last started the app (None: never
        recorded), so a method that becomes a default later is told about once, not ticked."""
        return self._names("methods/defaults_seen")

    def set_default_methods_seen(self, names: set[str]) -> None:
        self.q.setValue("methods/defaults_seen", json.dumps(sorted(names)))

    def params(self, spec: DetectorSpec) -> Params:
        raw = self.q.value(f"params/{spec.name}")
        if raw is None:
            return spec.defaults()
        try:
            values: dict[str, Any] = dict(json.loads(str(raw)))
        except (ValueError, TypeError):
            return spec.defaults()
        known = {p.name for p in spec.params}
        for key in [k for k in values if k not in known]:
            log.warning("settings: dropping unknown parameter %r of %s", key, spec.name)
            del values[key]
        try:
            return spec.coerce(values)
        except ParameterError as err:
            log.warning("settings: %s; using the defaults of %s", err, spec.name)
            return spec.defaults()

    def set_params(self, spec: DetectorSpec, params: Params) -> None:
        if params == spec.defaults():
            self.q.remove(f"params/{spec.name}")
        else:
            self.q.setValue(f"params/{spec.name}", json.dumps(dict(params)))

    def clear_params(self) -> None:
        self.q.remove("params")
        self.q.remove("presets")

    def preset(self, spec: DetectorSpec) -> str | None:
        """The preset last chosen for ``spec`` (None: the defaults)."""
        raw = self.q.value(f"presets/{spec.name}")
        names = {p.name for p in spec.presets}
        return str(raw) if raw is not None and str(raw) in names else None

    def set_preset(self, spec: DetectorSpec, name: str | None) -> None:
        if name is None or name not in {p.name for p in spec.presets}:
            self.q.remove(f"presets/{spec.name}")
        else:
            self.q.setValue(f"presets/{spec.name}", name)

    # warm-up panel
    def warmup_delta(self) -> tuple[float, str] | None:
        """The Warm-up panel's delta ``(value, unit)`` last chosen, None when never saved or
        unreadable (the panel checks the unit and the value)."""
        raw = self.q.value("warmup/delta")
        try:
            value, unit = json.loads(str(raw)) if raw is not None else (None, None)
            return (float(value), str(unit)) if unit is not None else None
        except (ValueError, TypeError):
            return None

    def set_warmup_delta(self, value: float, unit: str) -> None:
        self.q.setValue("warmup/delta", json.dumps([float(value), str(unit)]))

    # files
    def last_folder(self) -> str:
        """Where file dialogs start: the folder last opened by the user, else the home folder
        (never the installed package's bundled sample)."""
        raw = str(self.q.value("files/last_folder", "") or "")
        if raw and Path(raw).is_dir() and not _inside_package(Path(raw)):
            return raw
        return str(Path.home())

    def set_last_folder(self, folder: str) -> None:
        if not _inside_package(Path(folder)):  # opening the bundled sample is not a choice
            self.q.setValue("files/last_folder", folder)

    def recent_files(self) -> list[str]:
        raw = self.q.value("files/recent")
        try:
            return [str(p) for p in json.loads(str(raw))] if raw else []
        except ValueError:
            return []

    def add_recent(self, path: str) -> list[str]:
        items = [path] + [p for p in self.recent_files() if p != path]
        items = items[:MAX_RECENT]
        self.q.setValue("files/recent", json.dumps(items))
        return items

    def sync(self) -> None:
        self.q.sync()
