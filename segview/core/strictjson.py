"""JSON objects with a key given twice are refused (shared by the readers and the export manifests).

JSON leaves duplicate keys undefined and Python's ``json`` keeps the last value silently, so a file
naming ``"n_obs"`` (or an annotator, or an export's item) twice would be read as whichever came last.
"""
from __future__ import annotations

from typing import Any


class DuplicateKeyError(ValueError):
    """A JSON object names the same key twice (raised by :func:`strict_object`)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads`` that refuses a key given twice in one object.

    JSON leaves duplicates undefined and Python keeps the last value silently, so a file with
    ``"n_obs"`` (or an annotator, or a dataset name) twice would be read as whichever came last.
    """
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out
