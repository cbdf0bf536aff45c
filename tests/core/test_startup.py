"""Start-up stays light: ``import segview`` and ``segview --help`` load no heavy library (issue 15.5).

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


def _loaded_after(code: str) -> list[str]:
    probe = (f"{code}\nimport sys\n"
             f"print([m for m in {HEAVY!r} if m in sys.modules])\n")
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
