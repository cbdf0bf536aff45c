"""Entry point for frozen builds (PyInstaller cannot start a package's ``__main__`` with relative
imports)."""
import sys

from segview.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
