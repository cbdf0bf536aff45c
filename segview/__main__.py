import sys

from segview.cli.main import main

if __name__ == "__main__":  # worker processes (spawn) import this module as __mp_main__
    sys.exit(main())
