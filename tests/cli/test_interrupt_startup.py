"""Issue 30, item 12: Ctrl-C while the CLI is still starting (importing a command's modules,
building its parser, importing segview.cli.main itself) ends with one line and exit code 130,
never a traceback."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from segview.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]


def test_ctrl_c_while_the_command_modules_import(monkeypatch, capsys):
    def interrupted(name, *a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "import_module", interrupted)
    assert cli_main.main(["detect", "-m", "binseg", "x.csv"]) == 130
    err = capsys.readouterr().err
    assert err == "segview: interrupted\n"


def test_ctrl_c_while_python_imports_segview_cli(tmp_path):
    """``python -m segview``: the interrupt arrives during ``import segview.cli.main``."""
    hook = textwrap.dedent("""
        import runpy, sys
        class Interrupt:
            def find_spec(self, name, path=None, target=None):
                if name == "segview.cli.main":
                    raise KeyboardInterrupt
                return None
        sys.meta_path.insert(0, Interrupt())
        sys.argv = ["segview", "methods"]
        runpy.run_module("segview", run_name="__main__", alter_sys=True)
    """)
    proc = subprocess.run([sys.executable, "-c", hook], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 130, proc.stderr[-500:]
    assert proc.stderr == "segview: interrupted\n"
