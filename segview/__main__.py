import sys

from segview.cli.main import main

sys.exit(main())
