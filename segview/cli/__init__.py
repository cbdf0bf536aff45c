"""segview's command-line front end (argparse; never imports Qt)."""
