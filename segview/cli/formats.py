"""``segview formats [NAME] [--format text|json]``: list the file formats segview reads.

For each registered reader: its name, the harness that writes the format, the file extensions it
is tried on, its label, the harness/format version it was checked against and a short example of
a file's content. Files are recognised by their content (the reader whose extension matches and
whose sniffer accepts the file's first KiB, by priority), so the extension alone does not decide.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from ..core.errors import InputError
from ..core.io.readers import Reader, all_readers

HELP = "list the file formats (readers) segview reads, with examples"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("formats", help=HELP, description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="?", help="show one reader only")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def reader_dict(r: Reader) -> dict[str, Any]:
    """A reader's description as JSON values."""
    return {"name": r.name, "harness": r.harness, "extensions": list(r.extensions),
            "label": r.label, "checked": r.checked, "example": r.example,
            "priority": r.priority, "options": list(r.options)}


def format_text(readers: list[dict[str, Any]]) -> str:
    blocks = []
    for r in readers:
        lines = [f"{r['name']}: {r['label']}",
                 f"  harness:    {r['harness'] or '-'}",
                 f"  extensions: {' '.join(r['extensions']) or '-'}",
                 f"  checked:    {r['checked'] or '-'}"]
        if r["options"]:
            lines.append(f"  options:    {', '.join(r['options'])}")
        if r["example"]:
            lines.append("  example:")
            lines += [f"    {ln}" for ln in r["example"].rstrip("\n").splitlines()]
        else:
            lines.append("  example:    -")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def run(args: argparse.Namespace) -> int:
    readers = all_readers()
    if args.name:
        readers = [r for r in readers if r.name == args.name]
        if not readers:
            known = ", ".join(r.name for r in all_readers())
            raise InputError(args.name, f"no such format; known formats: {known}")
    rows = [reader_dict(r) for r in readers]
    if args.format == "json":
        print(json.dumps({"readers": rows}, indent=1, ensure_ascii=False))
    else:
        print(format_text(rows), end="")
    return 0
