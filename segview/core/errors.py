"""Error hierarchy shared by the core, the CLI and the GUI.

``RecoverableError`` covers everything a user can cause and fix (a malformed file, a value out of
range, a cancelled run): the CLI prints it and exits non-zero, the GUI shows a message and carries
on. Any other exception is a bug.
"""
from __future__ import annotations


class SegviewWarning(UserWarning):
    """Warnings segview issues (tests turn them into errors)."""


class DataFormatWarning(SegviewWarning):
    """A file loaded, but part of it looks wrong (a crashed process execution, a benchmark
    without measurements): ``source`` names the file and ``where`` the place inside it."""

    def __init__(self, source: str, reason: str, where: str | None = None) -> None:
        self.source = str(source)
        self.reason = reason
        self.where = where
        loc = f" ({where})" if where else ""
        super().__init__(f"{self.source}{loc}: {reason}")


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


class MissingValuesError(DataFormatError):
    """A series has missing values (TCPD ``null``) and no gap-filling rule was chosen. ``rules``
    names the rules a caller can choose; ``hint`` says how, in the words of the front end that
    reports it (:meth:`with_hint`): the library names the ``fill_missing`` argument, the command
    line its ``--fill-missing`` option, the explorer its menu."""

    def __init__(self, source: str, where: str | None, rules: tuple[str, ...],
                 hint: str | None = None) -> None:
        self.rules = tuple(rules)
        self.hint = hint if hint is not None else (
            f"load with a gap-filling rule: fill_missing={' or '.join(self.rules)}")
        super().__init__(source, "missing value (null); segview needs complete series (or "
                                 f"{self.hint})", where)

    def with_hint(self, hint: str) -> "MissingValuesError":
        """The same error, saying ``hint`` instead of how the library would be called."""
        return MissingValuesError(self.source, self.where, self.rules, hint)

    def __reduce__(self) -> tuple:
        return type(self), (self.source, self.where, self.rules, self.hint)


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


class StoreError(RecoverableError):
    """The annotation database could not do what was asked: it cannot be opened or read, it is
    read-only, the disk is full, the server went away, the file is damaged. Nothing of the failed
    transaction is kept; what was committed before stays. The store raises this (never a database
    library's own exception), so callers outside it need not know which library it uses."""


class StoreConflictError(StoreError):
    """A write broke one of the database's uniqueness rules, typically because another window or
    machine created the same row at the same moment; nothing of the transaction is kept."""


class DatabaseFileGoneError(StoreError):
    """The SQLite file of an open annotation store was deleted, moved away or replaced by another
    file since it was opened: nothing is written (it would go into a file no one can open again).

    ``path`` is the file, ``how`` says what happened (``deleted`` or ``replaced``), ``rescued``
    the copy of what the open store still held (its confirmed judgments), or None.
    """

    def __init__(self, path: str, how: str, rescued: str | None = None) -> None:
        self.path = str(path)
        self.how = how
        self.rescued = rescued
        kept = (f" Every judgment confirmed before is copied to {rescued}." if rescued else "")
        if how.startswith("replaced"):
            then = (" Reopen the session (Session > Open) to go on in the file now at that path"
                    + (", or open the copy" if rescued else ""))
        else:
            then = (" To go on, open " + ("that copy" if rescued else "the file")
                    + " (or the file where it was moved) as the annotation database")
        super().__init__(
            f"annotation database {self.path} was {how} while it was open: this judgment was NOT "
            f"saved (writing on would put it into a file no one can open again).{kept}{then}")


class StaleLabelError(RecoverableError):
    """A judge's label of a series changed elsewhere (another window or machine of the same judge)
    since the caller read it: the action based on the old view is refused, nothing is written.

    ``series_id`` names the series, ``current`` is the label now stored (None: not labelled).
    """

    def __init__(self, series_id: str, judge: str, current: object, what: str = "") -> None:
        self.series_id = series_id
        self.judge = judge
        self.current = current
        super().__init__(what or (
            f"{series_id}: {judge}'s label was changed in another window or on another machine "
            "since this window showed it; nothing was saved. The newer label is shown now; "
            "repeat the action to replace it"))


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread by the command line's handler so that a termination
    cleans up exactly like Ctrl-C: partial results kept, temporary files and folders removed."""

    signum = 15
