"""Loading series for the commands that read them (detect, evaluate, sensitivity, tune, session
create, inspect, warmup): one place for ``--columns`` and ``--fill-missing`` and what is said
about them on stderr.

``--columns bench=NAME,exec=NAME,iter=NAME,value=NAME,...`` reads CSV/TSV tables through a column
mapping (:mod:`segview.core.io.columns`) and remembers it for their folders; a later command on a
table in such a folder without ``--columns`` uses the remembered mapping and says so on stderr.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.io import Dataset

COLUMNS_HELP = ("read CSV/TSV tables through a column mapping: KEY=COLUMN pairs, keys bench, exec, "
                "iter, value, unit, time, warmup (a column whose true cells mark warm-up "
                "iterations), unit_value (a fixed unit), layout=long|wide|rows (wide: value=a,b,c "
                "or value=*, each column a benchmark; rows: each row an execution, its value "
                "columns the iterations), delimiter=tab|comma|semicolon; e.g. --columns bench=name,exec=fork,"
                "iter=i,value=ns. Remembered for the tables' folders: later commands there use it "
                "without --columns")


def add_columns_option(p: argparse.ArgumentParser) -> None:
    """Give a command that loads series the ``--columns SPEC`` option."""
    p.add_argument("--columns", metavar="SPEC", default=None, help=COLUMNS_HELP)


#: the gap-filling rules of :data:`segview.core.io.tcpd_json.FILL_RULES` (not imported here: the
#: parsers are built without loading numpy)
FILL_RULES = ("linear", "previous")
FILL_MISSING_HELP = ("fill missing values (TCPD null) by this rule: linear (between the "
                     "neighbours) or previous (the last value carried forward); by default a file "
                     "with a gap is an error (skipped inside a folder)")
#: how a missing-value error says to choose a rule on the command line
FILL_MISSING_HINT = "run again with --fill-missing linear or --fill-missing previous"


def add_fill_missing_option(p: argparse.ArgumentParser, text: str = FILL_MISSING_HELP) -> None:
    """Give a command that loads series the ``--fill-missing RULE`` option (read by
    :func:`load_series`)."""
    p.add_argument("--fill-missing", choices=FILL_RULES, default=None, help=text)


def add_search_inputs(p: argparse.ArgumentParser) -> None:
    """What every parameter search reads (``tune``, ``sensitivity``): the series, how to read
    them, the ground truth and the method whose parameters are searched."""
    p.add_argument("paths", nargs="+", metavar="PATH", help="series files or folders")
    add_columns_option(p)
    add_fill_missing_option(p)
    p.add_argument("--truth", required=True, metavar="GT.csv", help="ground-truth table")
    p.add_argument("-m", "--method", required=True, help="registered detector name")


def in_cli_words(err: Any, args: argparse.Namespace) -> Any:
    """A missing-value error names ``--fill-missing`` when the command has it (instead of the
    library's ``fill_missing=`` argument); any other error is returned as it is."""
    from ..core.errors import MissingValuesError

    if isinstance(err, MissingValuesError) and hasattr(args, "fill_missing"):
        return err.with_hint(FILL_MISSING_HINT)
    return err


def load_series(args: argparse.Namespace, paths: Iterable[Any], **kwargs: Any) -> "Dataset":
    """``segview.load(paths)`` with the command's ``--columns`` (checked before anything is
    read) and ``--fill-missing`` (when it has them; a missing-value error then names the option);
    the mapping is remembered for the folders of the tables read with it, and every table
    read with a remembered mapping is named on stderr."""
    from ..core.errors import MissingValuesError
    from ..core.io import columns as cols, load

    paths = list(paths)
    spec = getattr(args, "columns", None)
    mapping = cols.parse_columns(spec) if spec else None
    if hasattr(args, "fill_missing"):
        kwargs.setdefault("fill_missing", args.fill_missing)
    try:
        ds = load(paths, columns=mapping, **kwargs)
    except MissingValuesError as err:
        raise in_cli_words(err, args) from None
    ds.problems = [in_cli_words(p, args) for p in ds.problems]
    if mapping is not None:
        folders = sorted({str(Path(str(s.metadata["source"])).parent) for s in ds.series
                          if s.metadata.get("columns_source") == "given"})
        for folder in folders:
            cols.remember_mapping(Path(folder), mapping)
        if folders:
            print(f"segview: column mapping {mapping.spec()} remembered for "
                  f"{', '.join(folders)}", file=sys.stderr)
        else:
            print(f"segview: warning: no table was read with the column mapping {mapping.spec()}",
                  file=sys.stderr)
    announce_remembered(ds.series)
    return ds


def remember_columns(args: argparse.Namespace, paths: Iterable[Any]) -> None:
    """For the commands that hand their paths to a window (gui, annotate): remember ``--columns``
    for the folders of the tables among ``paths`` that have the mapping's columns, so that the
    window's load reads them with it.

    Raises:
        ParameterError: a bad mapping. DataFormatError: a table named on the command line lacks
            a column the mapping names.
    """
    from ..core.io import columns as cols

    spec = getattr(args, "columns", None)
    if not spec:
        return
    mapping = cols.parse_columns(spec)
    folders: set[str] = set()
    for raw in paths:
        p = Path(raw)
        tables = ([f for f in sorted(p.rglob("*")) if f.suffix.lower() in cols.TABLE_EXTENSIONS
                   and f.is_file()] if p.is_dir() else [p])
        for f in tables:
            header = cols.header_of(f, mapping.delimiter) or []
            if cols.fits(mapping, header):
                folders.add(str(f.parent))
            elif not p.is_dir():
                cols.read_mapped(f, mapping)  # raises the error naming the missing column
    for folder in sorted(folders):
        cols.remember_mapping(Path(folder), mapping)
    if folders:
        print(f"segview: column mapping {mapping.spec()} remembered for "
              f"{', '.join(sorted(folders))}", file=sys.stderr)
    else:
        print(f"segview: warning: no table has the columns of {mapping.spec()}", file=sys.stderr)


def announce_remembered(series: Iterable[Any]) -> None:
    """Name on stderr each file read with a mapping remembered for its folder."""
    seen: dict[str, str] = {}
    for s in series:
        meta = s.metadata
        if meta.get("columns_source") == "remembered":
            seen.setdefault(str(meta.get("source")), str(meta.get("columns")))
    for source, spec in seen.items():
        print(f"segview: {source}: read with the column mapping remembered for its folder "
              f"({spec}); pass --columns to use another", file=sys.stderr)
