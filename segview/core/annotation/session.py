"""Annotation sessions: the judge-facing workflow on top of :class:`~.store.Store` (Qt-free).

A GUI drives it like this::

    store = Store(url)                      # or Store() for the default SQLite file
    s = AnnotationSession.create(store, "jmh-2026", dataset, protocol="steady_state")
    s = AnnotationSession.open(store, "jmh-2026")
    judge = s.judge("alice", create=True)   # seeded, recorded shuffled order
    order = s.order(judge)                  # items in this judge's order
    plan = s.plan(judge)                    # order + hidden calibration repeats (Step.repeat)
    pos = s.resume_position(judge)          # first step of the plan not labelled yet
    s.visit(judge, series_id)               # opened a series (audit, last_visited)
    s.record(judge, item.series_id, steady=True, onset=812)   # committed at once
    s.record(judge, sid, steady=False, repeat=True)           # a calibration repeat
    s.undo(judge); s.redo(judge)            # appended to the history, nothing deleted
    s.record(judge, sid, steady=True, expect=lab.event_id)   # refused if changed elsewhere
    s.undo(judge, mine=ids, shown=view)     # one window's own actions only (see record/undo)
    s.progress()                            # {judge name: (labelled, total)}
    s.add_judges(["bob", "carol"])          # several judges at once (names checked first)
    s.assign(k=3, seed=1)                   # each series to exactly 3 judges (balanced, seeded)
    s.coverage()                            # {series_id: (judges labelled, judges assigned)}
    s.visible_labels(judge, series_id)      # {} in blind mode unless review=True
    s.adjudicate(chief, series_id, steady=True, onset=800)    # beside the judges' labels
    s.aggregate()                           # GroundTruth per series, session settings

Labels are :class:`Label` objects; ``None`` means "not annotated yet", while a label with
``steady=False`` (or an empty change-point list) means "looked, no onset / no change point".
"""
from __future__ import annotations

import json
import secrets
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import insert, select

from ... import __version__
from ..errors import DataFormatError, InputError, StaleLabelError, StoreConflictError
from ..model import Series
from . import store as st
from .aggregate import Adjudication, GroundTruth, aggregate, aggregate_change_points

#: ``expect`` / ``shown`` not given: no optimistic check (library callers, imports)
ANY: Any = type("AnyLabel", (), {"__repr__": lambda self: "ANY"})()

DEFAULT_SETTINGS: dict[str, Any] = {"rule": "general", "eps": 50.0, "eps_frac": None,
                                    "min_samples": None, "tie": "disputed", "blind": True,
                                    "calibration": 0}


def split_judge_names(text: str) -> list[str]:
    """Judge names typed as one list (``"alice, bob,carol"``): split at commas, stripped, empty
    entries and repeats dropped, in the order given."""
    out: list[str] = []
    for name in (part.strip() for part in text.split(",")):
        if name and name not in out:
            out.append(name)
    return out


def check_judge_names(names: Iterable[str], what: str = "judge") -> None:
    """Refuse an empty name, or one the database cannot store, before anything is written (the
    checks :meth:`AnnotationSession.judge` makes, for a whole list: ``session create --judge``
    and the session dialog).

    Raises:
        InputError: naming ``what`` (e.g. ``--judge``) or the name, and the reason.
    """
    for name in names:
        if not name.strip():
            raise InputError(what, "a judge name is empty")
        st.check_text(name, f"judge name {st.shown(name)}", st.MAX_NAME)


@dataclass(frozen=True)
class Item:
    """One series of a session."""

    id: int
    series_id: str
    content_hash: str
    position: int
    n_samples: int
    source: str


@dataclass(frozen=True)
class Judge:
    """A judge (or adjudicator) of a session; ``seed`` fixes their order of the items."""

    id: int
    name: str
    role: str
    seed: int


@dataclass(frozen=True)
class Step:
    """One position of a judge's plan: an item, possibly as a hidden calibration repeat."""

    item: Item
    repeat: bool = False


@dataclass(frozen=True)
class Label:
    """A judge's current label of one series (the latest effective action of the history)."""

    series_id: str
    judge: str
    steady: bool | None
    onset: int | None
    change_points: tuple[int, ...] | None
    confidence: float | None
    note: str | None
    event_id: int
    created_at: float


class AnnotationSession:
    """One annotation session in a store. Use :meth:`create` or :meth:`open`."""

    def __init__(self, store: st.Store, row: Any) -> None:
        self.store = store
        self.id: int = int(row.id)
        self.name: str = row.name
        self.protocol: str = row.protocol
        self.settings: dict[str, Any] = {**DEFAULT_SETTINGS, **json.loads(row.settings)}
        self.created_at: float = row.created_at
        self.tool_version: str = row.tool_version
        self._items: list[Item] | None = None
        self._by_id: dict[str, Item] | None = None

    # ----- creation ---------------------------------------------------------------------------
    @classmethod
    def create(cls, store: st.Store, name: str, series: Iterable[Series], *,
               protocol: str = "steady_state", settings: Mapping[str, Any] | None = None,
               store_values: bool = True) -> "AnnotationSession":
        """Create a session over ``series`` (their ids must be unique).

        Args:
            store_values: keep the values in the database so judges elsewhere see the same data.
        """
        series = list(series)
        if not series:
            raise InputError(name, "a session needs at least one series")
        ids = [s.id for s in series]
        dups = sorted({i for i in ids if ids.count(i) > 1})
        if dups:
            raise InputError(name, f"series ids must be unique; repeated: {', '.join(dups[:5])}")
        unknown = set(settings or {}) - set(DEFAULT_SETTINGS)
        if unknown:
            raise InputError(name, f"unknown session setting(s) {', '.join(sorted(unknown))}; "
                                   f"known: {', '.join(DEFAULT_SETTINGS)}")
        rows = [{"series_id": s.id, "content_hash": s.content_hash,
                 "position": k, "n_samples": len(s), "source": str(s.metadata.get("source", "")),
                 "values": s.values.tobytes() if store_values else None,
                 "x_values": s.x.tobytes() if store_values and s.x is not None else None}
                for k, s in enumerate(series)]
        multi = [s for s in series if s.dims]

        def add_dimensions(conn: Any, sid: int) -> None:  # same transaction as the items
            ids = dict(conn.execute(select(st.items.c.series_id, st.items.c.id).where(
                st.items.c.session_id == sid)).all())
            conn.execute(insert(st.item_dimensions), [
                {"item_id": ids[s.id], "names": json.dumps(list(s.dims))} for s in multi])

        store.insert_session(name, protocol, {**DEFAULT_SETTINGS, **(settings or {})},
                             __version__, item_rows=rows, then=add_dimensions if multi else None)
        return cls.open(store, name)

    @classmethod
    def open(cls, store: st.Store, name: str) -> "AnnotationSession":
        session = cls(store, store.session_row(name))
        if not session.items():
            raise InputError(name, "the session has no series (its creation was interrupted); "
                                   f"remove it with: segview session delete {name}")
        return session

    # ----- items ------------------------------------------------------------------------------
    def items(self) -> list[Item]:
        if self._items is None:
            with self.store.read() as conn:
                rows = conn.execute(select(st.items.c.id, st.items.c.series_id,
                                           st.items.c.content_hash, st.items.c.position,
                                           st.items.c.n_samples, st.items.c.source)
                                    .where(st.items.c.session_id == self.id)
                                    .order_by(st.items.c.position))
                self._items = [Item(*r) for r in rows]
        return self._items

    def item(self, series_id: str) -> Item:
        if self._by_id is None:
            self._by_id = {it.series_id: it for it in self.items()}
        try:
            return self._by_id[series_id]
        except KeyError:
            raise InputError(series_id, f"not a series of session {self.name!r}") from None

    def series(self, series_id: str) -> Series:
        """The stored series (values checked against the content hash)."""
        it = self.item(series_id)
        with self.store.read() as conn:
            row = conn.execute(select(st.items.c["values"], st.items.c.x_values)
                               .where(st.items.c.id == it.id)).one()
        if row[0] is None:
            raise DataFormatError(series_id, "the session does not store the values; load the "
                                             f"data from {it.source or 'its files'}")
        x = np.frombuffer(row[1], dtype=np.float64) if row[1] is not None else None
        dims = self.dimensions(series_id)
        values = np.frombuffer(row[0], dtype=np.float64)
        if dims:
            values = values.reshape(it.n_samples, len(dims))
        s = Series(values, x, it.series_id, {"source": it.source}, dims=dims or None)
        if s.content_hash != it.content_hash:
            raise DataFormatError(series_id, "stored values do not match the content hash")
        return s

    def dimensions(self, series_id: str) -> tuple[str, ...]:
        """The dimension names of a multivariate item (``()`` for a univariate one)."""
        it = self.item(series_id)
        with self.store.read() as conn:
            names = conn.execute(select(st.item_dimensions.c.names).where(
                st.item_dimensions.c.item_id == it.id)).scalar()
        return tuple(json.loads(names)) if names else ()

    def check_data(self, series: Iterable[Series]) -> list[str]:
        """Ids of the given series whose content differs from the session's (labels would
        detach)."""
        by_id = {it.series_id: it for it in self.items()}
        return [s.id for s in series
                if s.id in by_id and by_id[s.id].content_hash != s.content_hash]

    # ----- judges -----------------------------------------------------------------------------
    def judges(self, role: str | None = None) -> list[Judge]:
        q = select(st.judges.c.id, st.judges.c.name, st.judges.c.role, st.judges.c.seed).where(
            st.judges.c.session_id == self.id).order_by(st.judges.c.id)
        if role is not None:
            q = q.where(st.judges.c.role == role)
        with self.store.read() as conn:
            return [Judge(*r) for r in conn.execute(q)]

    def judge(self, name: str, *, create: bool = False, role: str = "judge",
              seed: int | None = None) -> Judge:
        """A judge by name; ``create=True`` adds them (with a recorded random seed)."""
        for j in self.judges():
            if j.name == name:
                return j
        if not create:
            raise InputError(name, f"no judge of that name in session {self.name!r}")
        if role not in st.ROLES:
            raise InputError(name, f"role must be one of {', '.join(st.ROLES)}")
        if not name.strip():
            raise InputError("judge", "the name is empty")
        st.check_text(name, f"judge name {st.shown(name)}", st.MAX_NAME)
        seed = secrets.randbits(31) if seed is None else int(seed)
        try:
            with self.store.write() as conn:
                conn.execute(insert(st.judges).values(session_id=self.id, name=name, role=role,
                                                      seed=seed, created_at=time.time()))
        except StoreConflictError:
            pass  # another process added the same judge just now: use theirs
        return self.judge(name)

    def add_judges(self, names: Sequence[str], role: str = "judge") -> list[Judge]:
        """Add several judges (each with their own seeded order, as :meth:`judge`); every name is
        checked before the first is written. Names already in the session are kept as they are."""
        check_judge_names(names)
        return [self.judge(name, create=True, role=role) for name in names]

    def order(self, judge: Judge) -> list[Item]:
        """The items in the judge's own shuffled order (seeded, reproducible); with an assignment
        (:meth:`assign`) only the judge's assigned items, in the assigned order."""
        assigned = self.assigned(judge)
        if assigned is not None:
            return assigned
        items = self.items()
        perm = np.random.default_rng(judge.seed).permutation(len(items))
        return [items[int(k)] for k in perm]

    # ----- assignment -------------------------------------------------------------------------
    def assigned(self, judge: Judge) -> list[Item] | None:
        """The judge's assigned items in order, or None when the judge has no assignment (then
        they annotate every item)."""
        with self.store.read() as conn:
            ids = list(conn.execute(select(st.assignments.c.item_id).where(
                st.assignments.c.judge_id == judge.id).order_by(st.assignments.c.position))
                .scalars())
        if not ids:
            return None
        by_id = {it.id: it for it in self.items()}
        return [by_id[i] for i in ids]

    def assign(self, k: int, seed: int | None = None, *, shared_order: bool = False,
               judges: Sequence[Judge] | None = None) -> dict[str, list[str]]:
        """Assign every series to exactly ``k`` judges, balanced (each judge gets
        ``floor`` or ``ceil`` of ``n * k / J`` series), reproducibly from ``seed``.

        The series are shuffled once (seeded) and dealt round the (shuffled) judges ``k`` at a
        time, so each series goes to ``k`` different judges. Each judge then sees their series in
        their own seeded order, or, with ``shared_order`` (pilots: every judge meets the common
        series early), all in the one shuffled order. Replaces an earlier assignment of these
        judges; judges added later without an assignment annotate every series.

        Returns ``{judge name: [series ids in order]}``.

        Raises:
            InputError: ``k`` outside ``1..number of judges``, or a judge has labels already.
        """
        judges = list(judges if judges is not None else self.judges("judge"))
        if not 1 <= int(k) <= len(judges):
            raise InputError(self.name, f"k = {k} judges per series needs 1 <= k <= the number "
                                        f"of judges ({len(judges)})")
        k = int(k)
        seed = secrets.randbits(31) if seed is None else int(seed)
        rng = np.random.default_rng([seed, 2])
        items = self.items()
        series_order = [items[int(i)] for i in rng.permutation(len(items))]
        dealer = [judges[int(i)] for i in rng.permutation(len(judges))]
        got: dict[int, list[Item]] = {j.id: [] for j in judges}
        for pos, it in enumerate(series_order):
            for r in range(k):
                got[dealer[(pos * k + r) % len(dealer)].id].append(it)
        out = {}
        rows = []
        for j in judges:
            mine = got[j.id]
            if not shared_order:
                mine = [mine[int(i)] for i in np.random.default_rng(j.seed).permutation(len(mine))]
            out[j.name] = [it.series_id for it in mine]
            rows += [{"session_id": self.id, "judge_id": j.id, "item_id": it.id, "position": p}
                     for p, it in enumerate(mine)]
        with self.store.write() as conn:
            conn.execute(st.assignments.delete().where(
                st.assignments.c.judge_id.in_([j.id for j in judges])))
            conn.execute(insert(st.assignments), rows)
        return out

    def set_assignment(self, judge: Judge, series_ids: Sequence[str]) -> None:
        """Give ``judge`` exactly these series in this order (an import of an assignment)."""
        rows = [{"session_id": self.id, "judge_id": judge.id, "item_id": self.item(sid).id,
                 "position": p} for p, sid in enumerate(series_ids)]
        with self.store.write() as conn:
            conn.execute(st.assignments.delete().where(st.assignments.c.judge_id == judge.id))
            if rows:
                conn.execute(insert(st.assignments), rows)

    def judges_per_series(self) -> dict[str, int]:
        """How many judges each series is meant to get: its assignments plus the judges without
        an assignment (who annotate everything)."""
        judges = self.judges("judge")
        with self.store.read() as conn:
            rows = conn.execute(select(st.assignments.c.item_id, st.assignments.c.judge_id).where(
                st.assignments.c.session_id == self.id)).all()
        assigned_judges = {jid for _, jid in rows}
        free = sum(1 for j in judges if j.id not in assigned_judges)
        count: dict[int, int] = {}
        for iid, _ in rows:
            count[iid] = count.get(iid, 0) + 1
        return {it.series_id: count.get(it.id, 0) + free for it in self.items()}

    def coverage(self) -> dict[str, tuple[int, int]]:
        """``{series_id: (judges who labelled it, judges meant to)}`` in session order."""
        want = self.judges_per_series()
        have = self.all_labels()
        return {sid: (len(have.get(sid, {})), k) for sid, k in want.items()}

    def under_covered(self) -> dict[str, tuple[int, int]]:
        """The series with fewer judgments than judges meant to label them."""
        return {sid: c for sid, c in self.coverage().items() if c[0] < c[1]}

    def calibration_items(self, judge: Judge) -> list[Item]:
        """The judge's hidden calibration subset (``settings["calibration"]`` items, seeded),
        shown a second time at the end of their plan to measure drift and intra-rater agreement."""
        k = min(int(self.settings.get("calibration") or 0), len(self.items()))
        if k <= 0:
            return []
        rng = np.random.default_rng([judge.seed, 1])
        order = self.order(judge)
        return [order[int(i)] for i in rng.choice(len(order), size=k, replace=False)]

    def plan(self, judge: Judge) -> list[Step]:
        """What the judge annotates, in order: every item once, then the calibration repeats."""
        return ([Step(it) for it in self.order(judge)]
                + [Step(it, True) for it in self.calibration_items(judge)])

    # ----- recording --------------------------------------------------------------------------
    def _validate(self, it: Item, steady: bool | None, onset: int | None,
                  change_points: Sequence[int] | None) -> tuple[int, ...] | None:
        if self.protocol == "steady_state":
            if steady is None:
                raise InputError(it.series_id, "say steady or unsteady (use clear() to unset)")
            if change_points is not None:
                raise InputError(it.series_id, "the steady_state protocol takes no change points")
            if onset is not None:
                if not steady:
                    raise InputError(it.series_id, "an unsteady series has no onset")
                if not 0 <= int(onset) < it.n_samples:
                    raise InputError(it.series_id, f"onset {onset} outside 0..{it.n_samples - 1}")
            return None
        if change_points is None:
            raise InputError(it.series_id, "the change_points protocol needs a list (empty = "
                                           "looked, none)")
        cps = tuple(sorted({int(c) for c in change_points}))
        bad = [c for c in cps if not 0 < c < it.n_samples]
        if bad:
            raise InputError(it.series_id, f"change point {bad[0]} outside 1..{it.n_samples - 1}")
        return cps

    def record(self, judge: Judge, series_id: str, *, steady: bool | None = None,
               onset: int | None = None, change_points: Sequence[int] | None = None,
               confidence: float | None = None, note: str | None = None,
               repeat: bool = False, expect: int | None = ANY) -> int:
        """Record a judgment, committed before returning; returns its event id.

        ``repeat=True`` labels the hidden calibration repeat of the series (see :meth:`plan`).

        ``expect`` makes the write optimistic: the event id of the label the caller's view shows
        (``Label.event_id``, or None for "not labelled"). When the stored label differs (the same
        judge changed it in another window or on another machine since), nothing is written and
        :class:`~segview.core.errors.StaleLabelError` carries the newer label, so the caller can
        show it before the judge decides again.
        """
        it = self.item(series_id)
        cps = self._validate(it, steady, onset, change_points)
        self._check_repeat(judge, it, repeat)
        if confidence is not None and not 0.0 <= float(confidence) <= 1.0:
            raise InputError(series_id, f"confidence {confidence} outside 0..1")
        st.check_text(note, f"note of series {st.shown(series_id)}")
        with self.store.write() as conn:
            self.store.lock_judge(conn, judge.id)
            self._check_expected(conn, judge, it, repeat, expect)
            return self.store.append_event(
                conn, session_id=self.id, judge_id=judge.id, item_id=it.id, kind="label",
                repeat=int(repeat), steady=steady, onset=None if onset is None else int(onset),
                change_points=cps,
                confidence=confidence, note=note, tool_version=__version__)

    def _label_of(self, judge: Judge, it: Item, ev: st.Event | None) -> Label | None:
        if ev is None:
            return None
        return Label(it.series_id, judge.name, ev.steady, ev.onset, ev.change_points,
                     ev.confidence, ev.note, ev.id, ev.created_at)

    def _check_expected(self, conn: Any, judge: Judge, it: Item, repeat: bool,
                        expect: int | None, history: list[st.Event] | None = None) -> None:
        """Under the judge's lock: refuse when the stored label is not the one ``expect`` names."""
        if expect is ANY:
            return
        if history is None:
            history = self.store.judge_history(judge.id, conn)
        current, _, _ = st.replay(history)
        ev = current.get((it.id, int(repeat)))
        if (ev.id if ev is not None else None) != (None if expect is None else int(expect)):
            raise StaleLabelError(it.series_id, judge.name, self._label_of(judge, it, ev))

    def _check_repeat(self, judge: Judge, it: Item, repeat: bool) -> None:
        if repeat and it not in self.calibration_items(judge):
            raise InputError(it.series_id, f"not in {judge.name}'s calibration subset")

    def record_many(self, entries: Sequence[tuple[Judge, str, Mapping[str, Any]]]) -> int:
        """Record many judgments in one transaction (imports); each entry is ``(judge, series_id,
        {steady, onset, change_points, confidence, note[, repeat, created_at]})``; an import keeps
        the original ``created_at``. All are validated first, so a bad entry
        records nothing. Returns the number recorded."""
        values = []
        for judge, series_id, lab in entries:
            it = self.item(series_id)
            cps = self._validate(it, lab.get("steady"), lab.get("onset"), lab.get("change_points"))
            self._check_repeat(judge, it, bool(lab.get("repeat")))
            conf = lab.get("confidence")
            if conf is not None and not 0.0 <= float(conf) <= 1.0:
                raise InputError(series_id, f"confidence {conf} outside 0..1")
            st.check_text(lab.get("note"), f"note of series {st.shown(series_id)}")
            values.append(dict(session_id=self.id, judge_id=judge.id, item_id=it.id, kind="label",
                               repeat=int(bool(lab.get("repeat"))),
                               steady=lab.get("steady"), onset=lab.get("onset"),
                               change_points=cps, confidence=conf, note=lab.get("note"),
                               tool_version=__version__,
                               **({"created_at": float(lab["created_at"])}
                                  if lab.get("created_at") is not None else {})))
        with self.store.write() as conn:
            for v in values:
                self.store.append_event(conn, **v)
        return len(values)

    def adjudicate(self, adjudicator: Judge, series_id: str, *, steady: bool | None = None,
                   onset: int | None = None, change_points: Sequence[int] | None = None,
                   note: str | None = None, confidence: float | None = None,
                   expect: int | None = ANY) -> int:
        """An adjudicator's decision, stored beside (never over) the judges' labels."""
        if adjudicator.role != "adjudicator":
            raise InputError(adjudicator.name, "is not an adjudicator of this session")
        return self.record(adjudicator, series_id, steady=steady, onset=onset,
                           change_points=change_points, note=note, confidence=confidence,
                           expect=expect)

    def clear(self, judge: Judge, series_id: str, repeat: bool = False, *,
              expect: int | None = ANY) -> int:
        """Set the series back to "not annotated" for this judge (a new history entry);
        ``expect`` as in :meth:`record`."""
        it = self.item(series_id)
        self._check_repeat(judge, it, repeat)
        with self.store.write() as conn:
            self.store.lock_judge(conn, judge.id)
            self._check_expected(conn, judge, it, repeat, expect)
            return self.store.append_event(conn, session_id=self.id, judge_id=judge.id,
                                           item_id=it.id, kind="clear", repeat=int(repeat),
                                           tool_version=__version__)

    def _undo_redo(self, judge: Judge, kind: str, mine: Collection[int] | None = None,
                   shown: Mapping[str, int | None] | None = None) -> str | None:
        with self.store.write() as conn:
            self.store.lock_judge(conn, judge.id)
            history = self.store.judge_history(judge.id, conn)
            _, done, redo = st.replay(history)
            by_id = {e.id: e for e in history}
            stack = done if kind == "undo" else redo
            if mine is not None:
                own = set(mine)
                if kind == "undo":
                    # the newest action on each (series, repeat): an own action another window
                    # has since overridden is not on screen anywhere, so undo skips it
                    top: dict[tuple[int | None, int], int] = {}
                    for eid in done:
                        top[(by_id[eid].item_id, by_id[eid].repeat)] = eid
                    stack = [e for e in stack if e in own
                             and top[(by_id[e].item_id, by_id[e].repeat)] == e]
                else:
                    stack = [e for e in stack if e in own]
            if not stack:
                return None
            target = by_id[stack[-1]]
            item_id = target.item_id
            if shown is not None and item_id is not None:
                it = next(i for i in self.items() if i.id == item_id)
                self._check_expected(conn, judge, it, bool(target.repeat),
                                     shown.get(it.series_id), history)
            self.store.append_event(conn, session_id=self.id, judge_id=judge.id,
                                    item_id=item_id, kind=kind, target=target.id,
                                    tool_version=__version__)
        return next(it.series_id for it in self.items() if it.id == item_id)

    def undo(self, judge: Judge, *, mine: Collection[int] | None = None,
             shown: Mapping[str, int | None] | None = None) -> str | None:
        """Revert the judge's latest action; returns the series it touched (None: nothing).

        For one of several windows of the same judge: ``mine`` (the ids of the label / clear
        events this window made) restricts undo to the window's own actions that are still in
        effect, and ``shown`` (``{series_id: Label.event_id}`` of what the window shows; absent =
        not labelled) refuses with :class:`~segview.core.errors.StaleLabelError` when the series
        it would touch was changed elsewhere since.
        """
        return self._undo_redo(judge, "undo", mine, shown)

    def redo(self, judge: Judge, *, mine: Collection[int] | None = None,
             shown: Mapping[str, int | None] | None = None) -> str | None:
        """Re-apply the latest undone action; returns its series (None: nothing to redo);
        ``mine`` and ``shown`` as in :meth:`undo`."""
        return self._undo_redo(judge, "redo", mine, shown)

    def can_undo(self, judge: Judge) -> bool:
        return bool(st.replay(self.store.judge_history(judge.id))[1])

    def can_redo(self, judge: Judge) -> bool:
        return bool(st.replay(self.store.judge_history(judge.id))[2])

    # ----- reading ----------------------------------------------------------------------------
    def labels(self, judge: Judge, repeat: bool = False) -> dict[str, Label]:
        """The judge's current labels by series id (unannotated series are absent); with
        ``repeat=True`` their labels of the calibration repeats."""
        current, _, _ = st.replay(self.store.judge_history(judge.id))
        by_item = {it.id: it.series_id for it in self.items()}
        return {by_item[iid]: Label(by_item[iid], judge.name, ev.steady, ev.onset,
                                    ev.change_points, ev.confidence, ev.note, ev.id, ev.created_at)
                for (iid, rep), ev in current.items() if rep == int(repeat)}

    def label(self, judge: Judge, series_id: str, repeat: bool = False) -> Label | None:
        return self.labels(judge, repeat).get(series_id)

    def intra_rater(self, judge: Judge) -> dict[str, float]:
        """Agreement of the judge with themself on the calibration repeats: ``n``,
        ``binary_agreement`` (share of equal steady votes), ``mean_abs_onset_diff`` (samples, over
        series steady both times), ``mean_onset_drift`` (repeat minus first, > 0 = later)."""
        first, again = self.labels(judge), self.labels(judge, repeat=True)
        both = [s for s in again if s in first]
        diffs = [a - f for s in both
                 if (f := first[s].onset) is not None and (a := again[s].onset) is not None]
        nan = float("nan")
        return {"n": float(len(both)),
                "binary_agreement": (sum(first[s].steady == again[s].steady for s in both)
                                     / len(both)) if both else nan,
                "mean_abs_onset_diff": float(np.mean(np.abs(diffs))) if diffs else nan,
                "mean_onset_drift": float(np.mean(diffs)) if diffs else nan}

    def all_labels(self, role: str = "judge") -> dict[str, dict[str, Label]]:
        """``{series_id: {judge: Label}}`` with judges in the session's fixed (creation) order."""
        out: dict[str, dict[str, Label]] = {it.series_id: {} for it in self.items()}
        for j in self.judges(role):
            for sid, lab in self.labels(j).items():
                out[sid][j.name] = lab
        return {k: v for k, v in out.items() if v}

    def visit(self, judge: Judge, series_id: str) -> int:
        """Note that the judge opened a series (resume point, audit trail; undo skips it)."""
        it = self.item(series_id)
        with self.store.write() as conn:
            return self.store.append_event(conn, session_id=self.id, judge_id=judge.id,
                                           item_id=it.id, kind="visit", tool_version=__version__)

    def last_visited(self, judge: Judge) -> str | None:
        """The series the judge opened last (None if never)."""
        visits = [e for e in self.store.judge_history(judge.id) if e.kind == "visit"]
        if not visits:
            return None
        return next(it.series_id for it in self.items() if it.id == visits[-1].item_id)

    def resume_position(self, judge: Judge) -> int:
        """Position in :meth:`plan` (= :meth:`order` followed by the calibration repeats) of the
        first step not annotated yet (``len(plan)`` when done)."""
        done = {False: self.labels(judge), True: self.labels(judge, repeat=True)}
        plan = self.plan(judge)
        return next((k for k, step in enumerate(plan)
                     if step.item.series_id not in done[step.repeat]), len(plan))

    def next_unannotated(self, judge: Judge, after: int | None = None) -> Item | None:
        """The next unannotated item in the judge's order after position ``after`` (wrapping)."""
        done = self.labels(judge)
        order = self.order(judge)
        start = 0 if after is None else after + 1
        for k in range(len(order)):
            it = order[(start + k) % len(order)]
            if it.series_id not in done:
                return it
        return None

    def progress(self, judge: Judge | None = None) -> dict[str, tuple[int, int]]:
        """``{judge name: (labelled, total)}`` over the judge's plan, for one judge or all."""
        who = [judge] if judge is not None else self.judges()
        out = {}
        for j in who:
            mine = {it.series_id for it in self.order(j)}
            reps = {it.series_id for it in self.calibration_items(j)}
            n_rep = len(set(self.labels(j, repeat=True)) & reps)
            out[j.name] = (len(set(self.labels(j)) & mine) + n_rep, len(mine) + len(reps))
        return out

    @property
    def blind(self) -> bool:
        return bool(self.settings.get("blind", True))

    def visible_labels(self, viewer: Judge, series_id: str, *, review: bool = False
                       ) -> dict[str, Label]:
        """Other judges' labels the viewer may see: none in blind mode unless ``review`` (or the
        viewer is an adjudicator)."""
        if self.blind and not review and viewer.role != "adjudicator":
            return {}
        out = {}
        for j in self.judges():
            if j.id != viewer.id:
                lab = self.label(j, series_id)
                if lab is not None:
                    out[j.name] = lab
        return out

    def history(self, judge: Judge | None = None) -> list[st.Event]:
        """The audit trail (every action, in order)."""
        if judge is not None:
            return self.store.judge_history(judge.id)
        return self.store.session_history(self.id)

    # ----- aggregation ------------------------------------------------------------------------
    def adjudications(self) -> dict[str, Adjudication]:
        out: dict[str, Adjudication] = {}
        for j in self.judges("adjudicator"):
            for sid, lab in self.labels(j).items():
                out[sid] = Adjudication(bool(lab.steady), lab.onset, j.name)
        return out

    def aggregate(self, **overrides: Any) -> list[GroundTruth]:
        """Aggregate the judges' steady-state labels with the session's settings (or overrides)."""
        cfg = {**self.settings, **overrides}
        rows = [(sid, j, lab.steady, lab.onset) for sid, per in self.all_labels().items()
                for j, lab in per.items()]
        if not rows:
            return []
        return aggregate(rows, rule=cfg["rule"], eps=cfg["eps"], min_samples=cfg["min_samples"],
                         tie=cfg["tie"], judge_order=[j.name for j in self.judges("judge")],
                         adjudications=self.adjudications(), eps_frac=cfg.get("eps_frac"),
                         lengths={it.series_id: it.n_samples for it in self.items()})

    def consensus_change_points(self, **overrides: Any) -> dict[str, list[int]]:
        """Change-point protocol: pooled, clustered consensus per series."""
        cfg = {**self.settings, **overrides}
        return {sid: aggregate_change_points({j: lab.change_points or () for j, lab in
                                              per.items()}, eps=cfg["eps"],
                                             min_judges=cfg["min_samples"])
                for sid, per in self.all_labels().items()}
