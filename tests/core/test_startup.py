"""Start-up stays light: ``import segview``, ``segview --help`` and ``segview methods`` load no heavy
library (issue 15.5); listing detectors loads no numba kernels.

Checked in a fresh interpreter through ``sys.modules`` (timings are a benchmark's business:
``tests/benchmarks/bench_startup.py``).
"""
from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from segview.cli import main as cli_main

HEAVY = ("scipy.stats", "statsmodels", "matplotlib", "pandas", "PySide6", "numba", "pyqtgraph")
#: what registering and listing the detectors must not load (their kernels load when they run)
KERNEL_LIBS = ("numba", "llvmlite", "scipy", "statsmodels", "pandas", "PySide6", "sklearn", "kneed")


def _loaded_after(code: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    probe = (f"{code}\nimport sys\n"
             f"print([m for m in {heavy!r} if m in sys.modules])\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    return eval(out.stdout.strip().splitlines()[-1])  # a list literal printed by the probe


def test_import_segview_loads_no_heavy_library():
    assert _loaded_after("import segview") == []


def test_help_loads_no_heavy_library():
    code = ("import contextlib, io, segview.cli.main as m\n"
            "with contextlib.redirect_stdout(io.StringIO()) as buf:\n"
            "    try:\n"
            "        m.main(['--help'])\n"
            "    except SystemExit:\n"
            "        pass\n"
            "assert 'detect' in buf.getvalue() and 'methods' in buf.getvalue()")
    assert _loaded_after(code) == []


def test_listing_methods_loads_no_kernel_library():
    # what `segview methods` does: every detector registered, every spec's parameters and presets
    code = ("import contextlib, io, json, segview.cli.main as m\n"
            "with contextlib.redirect_stdout(io.StringIO()) as buf:\n"
            "    assert m.main(['methods', '--json']) == 0\n"
            "    assert m.main(['methods', 'kbkssd']) == 0\n"
            "assert 'kbkssd' in buf.getvalue()\n"
            "from segview.core import registry\n"
            "for s in registry.all_specs():\n"
            "    s.defaults(); [s.coerce({}, preset=p.name) for p in s.presets]\n"
            "    registry.multivariate_runner(s.name)")
    assert _loaded_after(code, KERNEL_LIBS) == []


def test_a_detector_loads_its_kernels_when_it_runs():
    code = ("import numpy as np, segview\n"
            "segview.detect(np.r_[np.linspace(3, 1, 100), np.ones(200)], 'binseg')")
    assert "numba" in _loaded_after(code, KERNEL_LIBS)


def test_the_probe_sees_a_heavy_import():
    # the check above must be able to fail
    assert _loaded_after("import scipy.stats") == ["scipy.stats"]


@pytest.mark.parametrize("name", sorted(cli_main.COMMANDS))
def test_listed_help_equals_the_commands_own_help(name):
    parser = cli_main.build_parser(only=name)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert helps[name] == cli_main.COMMANDS[name]


@pytest.mark.parametrize("argv, command", [(["detect", "x.json"], "detect"),
                                           (["-v", "methods"], "methods"),
                                           (["--help"], None), (["nope"], None),
                                           (["-v", "--", "detect"], None)])
def test_command_of(argv, command):
    assert cli_main.command_of(argv) == command
