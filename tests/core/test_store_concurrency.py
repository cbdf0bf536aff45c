"""Two processes record 1,000 judgments each into one store: nothing lost, nothing corrupted.

Runs against an SQLite file always, and against PostgreSQL when ``SEGVIEW_TEST_PG_URL`` names a
reachable server (e.g. ``postgresql+psycopg://segview:segview@127.0.0.1:5432/segview``).
"""
from __future__ import annotations

import os
import subprocess
import sys
import uuid

import numpy as np
import pytest
from sqlalchemy import func, select

from segview.core.annotation import store as st
from segview.core.annotation.session import AnnotationSession
from segview.core.errors import RecoverableError
from segview.core.model import Series

N_EACH = 1000
N_ITEMS = 50

# Prints "ready", waits for "go" on stdin (both writers start together), then records N judgments
# printing each committed event.
WORKER = r"""
import sys
from segview.core.annotation.store import Store
from segview.core.annotation.session import AnnotationSession
url, name, judge_name = sys.argv[1:4]
n, base = int(sys.argv[4]), int(sys.argv[5])
s = AnnotationSession.open(Store(url), name)
judge = s.judge(judge_name)
items = s.items()
print("ready", flush=True)
sys.stdin.readline()
for k in range(n):
    it = items[k % len(items)]
    onset = (base + k) % it.n_samples
    eid = s.record(judge, it.series_id, steady=True, onset=onset)
    print(eid, it.series_id, onset, flush=True)
print("done", flush=True)
"""


def _pg_url() -> str:
    url = os.environ.get("SEGVIEW_TEST_PG_URL", "")
    if not url:
        pytest.skip("SEGVIEW_TEST_PG_URL is not set")
    try:
        st.Store(url).close()
    except RecoverableError as err:
        pytest.skip(f"PostgreSQL not reachable: {err}")
    return url


def _run_two_writers(url: str, name: str) -> None:
    store = st.Store(url)
    series = [Series(np.arange(300.0) + k, id=f"s{k}") for k in range(N_ITEMS)]
    session = AnnotationSession.create(store, name, series)
    judges = [session.judge(n, create=True) for n in ("alice", "bob")]
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, url, name, j.name, str(N_EACH),
                              str(7 * k)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True) for k, j in enumerate(judges)]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    outputs = [p.communicate(timeout=600)[0].splitlines() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    reported = [[tuple(line.split()) for line in out if line != "done"] for out in outputs]
    assert [len(r) for r in reported] == [N_EACH, N_EACH]

    if store.is_sqlite:
        assert store.integrity_check() == "ok"
    with store.read() as conn:
        rows = {r.id: r for r in conn.execute(
            select(st.events.c.id, st.events.c.judge_id, st.events.c.item_id, st.events.c.onset)
            .where(st.events.c.session_id == session.id))}
        n_events = conn.execute(select(func.count()).select_from(st.events)
                                .where(st.events.c.session_id == session.id)).scalar()
    assert n_events == 2 * N_EACH
    item_of = {it.series_id: it.id for it in session.items()}
    for judge, rep in zip(judges, reported):
        ids = [int(r[0]) for r in rep]
        assert ids == sorted(ids) and len(set(ids)) == N_EACH
        bad = [r for r in rep if (rows[int(r[0])].judge_id, rows[int(r[0])].item_id,
                                  rows[int(r[0])].onset) != (judge.id, item_of[r[1]], int(r[2]))]
        assert bad == []
        # each judge's current label of an item is the last one it recorded
        last = {sid: int(onset) for _, sid, onset in rep}
        assert {sid: lab.onset for sid, lab in session.labels(judge).items()} == last
    assert session.progress() == {"alice": (N_ITEMS, N_ITEMS), "bob": (N_ITEMS, N_ITEMS)}
    store.close()


def test_two_processes_sqlite(tmp_path):
    _run_two_writers(str(tmp_path / "shared.sqlite"), "concurrent")


@pytest.mark.postgres
def test_two_processes_postgresql():
    _run_two_writers(_pg_url(), f"concurrent-{uuid.uuid4().hex[:12]}")
