"""Pick the annotation database, a session (or create one from data files) and a judge.

The database location is always shown and can be changed: ``$SEGVIEW_DB`` or the embedded SQLite
file ``./segview-annotations.sqlite`` by default, another file, or a PostgreSQL URL shared by judges
on several machines. What the field holds means what ``--db`` would (one resolver,
:func:`~segview.core.annotation.location.resolve_db`); a password is never shown. A database that
cannot be opened is reported in the dialog, which stays open so the user can correct the location.

A new session can start with all its judges at once (``Judges: alice, bob, carol``, as
``segview session create --judge``), each series optionally assigned to k of them (as ``-k``);
the session is blind as always: no judge sees another's labels until review.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog,
                               QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QRadioButton, QSpinBox, QVBoxLayout, QWidget)

from ...core.secrets import mask_secrets
from ...core.annotation.session import AnnotationSession, split_judge_names
from ...core.annotation.location import DatabaseLocation, resolve_db
from ...core.annotation.store import PROTOCOLS, Store
from ...core.errors import RecoverableError

NEW_SESSION = "new"
OPEN_SESSION = "open"


@dataclass
class SessionChoice:
    """What the user picked (``create`` = make a new session from ``paths``, with ``judges``
    besides ``judge``, each series assigned to ``per_series`` of them when given)."""

    db: str
    session: str
    judge: str
    role: str = "judge"
    create: bool = False
    protocol: str = "steady_state"
    paths: list[str] = field(default_factory=list)
    judges: list[str] = field(default_factory=list)
    per_series: int | None = None

    def all_judges(self) -> list[str]:
        """The judges (role judge) a new session starts with: the list, and the user unless they
        join as an adjudicator."""
        extra = ([self.judge] if self.judge and self.role == "judge"
                 and self.judge not in self.judges else [])
        return [*self.judges, *extra]


class SessionDialog(QDialog):
    """Database, session and judge chooser."""

    def __init__(self, db: str | None = None, paths: list[str] | None = None,
                 session: str | None = None, judge: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Annotation session")
        self.setMinimumWidth(560)
        self.paths = list(paths or [])
        form = QFormLayout()
        # database
        # A URL's password is never shown: the field shows it masked and the real URL is used as
        # long as the masked text is left as it is.
        self._db_secret: str | None = None
        self.db_edit = QLineEdit()
        try:
            self._show_location(resolve_db(db or None, source="dialog"))
        except RecoverableError:  # a malformed name: shown (masked), connect_db says what is wrong
            self._db_secret = db if db and mask_secrets(db) != db else None
            self.db_edit.setText(mask_secrets(db or ""))
        self.db_edit.setToolTip("SQLite file, or a database URL such as "
                                "postgresql://user@host/segview (shared by several machines)")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse_db)
        default = QPushButton("Default")
        default.setToolTip("$SEGVIEW_DB if set, else the embedded SQLite file in the current folder")
        default.clicked.connect(self._use_default)
        connect = QPushButton("Connect")
        connect.clicked.connect(self.connect_db)
        self.db_edit.returnPressed.connect(self.connect_db)
        row = QHBoxLayout()
        for w in (self.db_edit, browse, default, connect):
            row.addWidget(w)
        form.addRow("Database:", row)
        self.db_status = QLabel()
        self.db_status.setWordWrap(True)
        form.addRow("", self.db_status)
        # session
        self.open_radio = QRadioButton("Open session:")
        self.session_combo = QComboBox()
        self.session_combo.currentTextChanged.connect(self._fill_judges)
        self.session_combo.activated.connect(lambda _i: self.open_radio.setChecked(True))
        form.addRow(self.open_radio, self.session_combo)
        self.new_radio = QRadioButton("New session:")
        self.new_name = QLineEdit(session or "")
        self.new_name.setPlaceholderText("session name")
        self.protocol_combo = QComboBox()
        self.protocol_combo.addItems(PROTOCOLS)
        new_row = QHBoxLayout()
        new_row.addWidget(self.new_name)
        new_row.addWidget(self.protocol_combo)
        form.addRow(self.new_radio, new_row)
        self.data_label = QLabel()
        self.data_label.setWordWrap(True)
        add_files = QPushButton("Data files…")
        add_files.clicked.connect(self._browse_data)
        data_row = QHBoxLayout()
        data_row.addWidget(self.data_label, 1)
        data_row.addWidget(add_files)
        form.addRow("Series:", data_row)
        self.judges_edit = QLineEdit()
        self.judges_edit.setPlaceholderText("alice, bob, carol (optional)")
        self.judges_edit.setToolTip("The new session's judges, comma-separated, as segview session "
                                    "create --judge; each gets their own random order and sees "
                                    "no one else's labels (blind). You are added if not listed.")
        self.per_series = QSpinBox()
        self.per_series.setRange(0, 99)
        self.per_series.setSpecialValueText("each series: all judges")
        self.per_series.setPrefix("each series to ")
        self.per_series.setSuffix(" judge(s)")
        self.per_series.setToolTip("Assign each series to exactly this many of the judges "
                                   "(balanced, seeded; as session create -k); 'all judges': "
                                   "every judge labels every series")
        judges_row = QHBoxLayout()
        judges_row.addWidget(self.judges_edit, 1)
        judges_row.addWidget(self.per_series)
        form.addRow("Judges:", judges_row)
        self.judges_hint = QLabel()
        self.judges_hint.setWordWrap(True)
        self.judges_hint.setStyleSheet("color: #555")
        form.addRow("", self.judges_hint)
        # judge
        self.judge_combo = QComboBox()
        self.judge_combo.setEditable(True)
        self.judge_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.judge_combo.lineEdit().setPlaceholderText("your name (a new name adds a judge)")
        if judge:
            self.judge_combo.setEditText(judge)
        self.adjudicator = QCheckBox("new judge is an adjudicator (reviews and decides)")
        form.addRow("You (judge):", self.judge_combo)
        form.addRow("", self.adjudicator)
        for sig in (self.judges_edit.textChanged, self.per_series.valueChanged,
                    self.judge_combo.currentTextChanged, self.adjudicator.toggled,
                    self.new_radio.toggled):
            sig.connect(self._show_judges)
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start annotating")
        buttons.accepted.connect(self._on_accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.error)
        lay.addWidget(buttons)
        self._preset_session = session
        self._show_paths()
        self.connect_db()
        self._show_judges()

    # ------------------------------------------------------------------ database
    def _show_location(self, loc: DatabaseLocation) -> None:
        """Put a location in the field: a file's absolute path, or a URL as it was given with its
        password masked; the real URL is used while that text is left unchanged."""
        if loc.path is not None:
            self._db_secret = None
            self.db_edit.setText(str(loc.path))
            return
        given = loc.given or loc.spec
        shown = mask_secrets(given)
        self._db_secret = given if shown != given else None
        self.db_edit.setText(shown)

    def _use_default(self) -> None:
        """$SEGVIEW_DB, else the embedded SQLite file in the current folder."""
        try:
            self._show_location(resolve_db(None, source="dialog"))
        except RecoverableError as err:
            self.error.setText(str(err))
            return
        self.connect_db()

    def db_url(self) -> str:
        """The database the user means: the real URL while its masked form is shown unchanged."""
        text = self.db_edit.text().strip()
        if self._db_secret is not None and text == mask_secrets(self._db_secret):
            return self._db_secret
        return text

    def connect_db(self) -> bool:
        """(Re)read the sessions of the database in the location field; False on failure."""
        self.session_combo.clear()
        self.error.clear()
        try:
            with Store(self.db_url() or None, source="dialog") as store:
                names = store.session_names()
                self.db_status.setText(f"{store.display_url} — {len(names)} session(s)")
        except RecoverableError as err:
            self.db_status.setText("not connected")
            self.error.setText(str(err))
            self.new_radio.setChecked(True)
            return False
        self.session_combo.addItems(names)
        preset = self._preset_session in names
        if preset:
            self.session_combo.setCurrentText(self._preset_session)
        else:  # no guess: the first session in the database is unrelated to the loaded files
            self.session_combo.setCurrentIndex(-1)
            self.session_combo.setPlaceholderText("choose a session")
        self.open_radio.setEnabled(bool(names))
        # with data files and no session named: a new session from them (the user may pick one)
        self.open_radio.setChecked(bool(names) and (preset or not self.paths))
        self.new_radio.setChecked(not self.open_radio.isChecked())
        if self.new_radio.isChecked() and not self.new_name.text() and self.paths:
            first = Path(self.paths[0])
            self.new_name.setText(first.name if first.is_dir() else first.parent.name or first.stem)
        return True

    def _fill_judges(self, name: str) -> None:
        typed = self.judge_combo.currentText()
        self.judge_combo.clear()
        if name:
            try:
                with Store(self.db_url() or None, source="dialog") as store:
                    s = AnnotationSession.open(store, name)
                    self.judge_combo.addItems([j.name for j in s.judges()])
            except RecoverableError as err:
                self.error.setText(str(err))
        self.judge_combo.setEditText(typed)

    def _browse_db(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Annotation database", self.db_edit.text(), "SQLite (*.sqlite *.db);;All (*)",
            options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.db_edit.setText(path)
            self.connect_db()

    def _browse_data(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Series files")
        if files:
            self.paths = files
            self._show_paths()
            self.new_radio.setChecked(True)

    def _show_paths(self) -> None:
        from pathlib import Path

        names = [Path(p).name for p in self.paths]
        text = (f"{len(names)} file(s): " + ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
                if names else "none (needed only for a new session)")
        self.data_label.setText(text)
        self.data_label.setToolTip("\n".join(self.paths))

    def _show_judges(self, *_args: object) -> None:
        """The judges list applies to a new session; say who the session will start with."""
        new = self.new_radio.isChecked()
        self.judges_edit.setEnabled(new)
        self.per_series.setEnabled(new)
        if not new:  # the row keeps its place: the dialog does not jump under the mouse
            self.judges_hint.setText("The judges list is for a new session; in an open one, each "
                                     "judge joins by typing their name below.")
            return
        c = self.choice()
        names = c.all_judges()
        if not names:
            self.judges_hint.setText("Name the judges to create them all with the session; "
                                     "otherwise each joins by typing their name here later.")
            return
        each = ("every judge labels every series" if c.per_series is None
                else f"each series to {c.per_series} of them")
        self.judges_hint.setText(f"{len(names)} judge(s): {', '.join(names)}; {each}; blind "
                                 "(no one sees another's labels until review)")

    # ------------------------------------------------------------------ result
    def choice(self) -> SessionChoice:
        judge = self.judge_combo.currentText().strip()
        role = "adjudicator" if self.adjudicator.isChecked() else "judge"
        db = self.db_url()
        if self.new_radio.isChecked():
            return SessionChoice(db, self.new_name.text().strip(), judge, role, True,
                                 self.protocol_combo.currentText(), list(self.paths),
                                 split_judge_names(self.judges_edit.text()),
                                 self.per_series.value() or None)
        return SessionChoice(db, self.session_combo.currentText(), judge, role)

    def _on_accept(self) -> None:
        c = self.choice()
        if not c.session:
            self.error.setText("Pick a session or give the new one a name.")
        elif not c.judge:
            self.error.setText("Type your name (or pick it from the list).")
        elif c.create and not c.paths:
            self.error.setText("A new session needs data files (Data files…).")
        elif c.create and c.role == "adjudicator" and c.judge in c.judges:
            self.error.setText(f"{c.judge} is in the judges list and marked adjudicator; "
                               "choose one.")
        elif c.create and c.per_series is not None and c.per_series > len(c.all_judges()):
            self.error.setText(f"Each series to {c.per_series} judges needs at least "
                               f"{c.per_series} judges; the session has {len(c.all_judges())}.")
        else:
            self.accept()
