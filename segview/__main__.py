import sys

if __name__ == "__main__":  # worker processes (spawn) import this module as __mp_main__
    try:
        from segview.cli.main import main
    except KeyboardInterrupt:  # Ctrl-C while Python is still importing: one line, no traceback
        print("segview: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())
