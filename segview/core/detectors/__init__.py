"""Importing this package registers every detector: one explicit import per detector module
(no discovery by package walk, which is import-order dependent and breaks under PyInstaller)."""
from . import nrss  # noqa: F401
