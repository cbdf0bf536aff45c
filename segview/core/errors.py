"""Error hierarchy shared by the core, the CLI and the GUI.

``RecoverableError`` covers everything a user can cause and fix (a malformed file, a value out of
range, a cancelled run): the CLI prints it and exits non-zero, the GUI shows a message and carries
on. Any other exception is a bug.
"""
from __future__ import annotations


class SegviewWarning(UserWarning):
    """Warnings segview issues (tests turn them into errors)."""


class SegviewError(Exception):
    """Base class of every error segview raises on purpose.

    Its text never shows a password: database URLs and DSNs in it are masked, so every front end
    that prints or shows a segview error is safe (CLI, GUI, logs).
    """

    def __str__(self) -> str:
        from .secrets import mask_secrets

        return mask_secrets(super().__str__())


class RecoverableError(SegviewError):
    """An error caused by input or by the user; the application keeps running."""


class DataFormatError(RecoverableError):
    """A file or a data value cannot be read. ``source`` names the file (or series) and ``where``
    the place inside it (a line, a key, an index)."""

    def __init__(self, source: str, reason: str, where: str | None = None) -> None:
        self.source = str(source)
        self.reason = reason
        self.where = where
        loc = f" ({where})" if where else ""
        super().__init__(f"{self.source}{loc}: {reason}")


class InputError(RecoverableError):
    """A series handed to a detector is unusable (empty, too short, non-finite, wrong shape)."""

    def __init__(self, what: str, reason: str) -> None:
        self.what = what
        self.reason = reason
        super().__init__(f"{what}: {reason}")


class OutputError(RecoverableError):
    """An output file or folder cannot be written (full disk, no permission, a folder in the
    way). ``path`` names the final file, never a temporary one; nothing cut is left under it."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class ParameterError(RecoverableError):
    """A parameter is unknown, of the wrong type or out of its range."""

    def __init__(self, name: str, reason: str, method: str | None = None) -> None:
        self.name = name
        self.reason = reason
        self.method = method
        where = f"{method}: " if method else ""
        super().__init__(f"{where}parameter {name!r}: {reason}")


class UnknownMethodError(RecoverableError):
    """No detector is registered under the requested name."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"unknown method {name!r}; known methods: {', '.join(known)}")


class Cancelled(RecoverableError):
    """A long computation was cancelled through its RunContext."""

    def __init__(self, what: str = "computation") -> None:
        super().__init__(f"{what} cancelled")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread by the command line's handler so that a termination
    cleans up exactly like Ctrl-C: partial results kept, temporary files and folders removed."""

    signum = 15
