"""The core and the CLI never import Qt: statically (source scan) and at run time (subprocess)."""
import re
import subprocess
import sys
from pathlib import Path

import segview

PKG = Path(segview.__file__).resolve().parent
QT = re.compile(r"^\s*(from|import)\s+(PySide6|PyQt5|PyQt6|pyqtgraph|shiboken6)\b", re.M)


def test_no_qt_import_outside_gui_in_source():
    offenders = [str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                 if "gui" not in p.relative_to(PKG).parts and QT.search(p.read_text())]
    assert offenders == []


def test_importing_core_and_cli_loads_no_qt():
    code = ("import sys, pkgutil, importlib, segview, segview.core, segview.cli.main\n"
            "for m in pkgutil.walk_packages(segview.core.__path__, 'segview.core.'):\n"
            "    importlib.import_module(m.name)\n"
            "segview.cli.main.build_parser()\n"
            "segview.methods()\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('PySide6', 'pyqtgraph', 'shiboken6', 'PyQt5', 'PyQt6')]\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_scan_detects_a_qt_import(tmp_path):
    # The pattern the tests rely on must actually match a Qt import line.
    assert QT.search("import numpy\nfrom PySide6.QtCore import QObject\n")
    assert not QT.search("# PySide6 is only used by segview.gui\n")
