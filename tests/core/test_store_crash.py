"""Crash safety: SIGKILL a process in the middle of recording 1,000 judgments."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from sqlalchemy import select

from segview.core.annotation import store as st
from segview.core.annotation.session import AnnotationSession
from segview.core.model import Series

N_JUDGMENTS = 1000
KILL_AFTER = 500

# Records N judgments and prints "event_id series_id onset" after each commit returned.
WORKER = r"""
import sys
from segview.core.annotation.store import Store
from segview.core.annotation.session import AnnotationSession
url, name, judge_name, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
s = AnnotationSession.open(Store(url), name)
judge = s.judge(judge_name)
items = s.items()
for k in range(n):
    it = items[k % len(items)]
    onset = k % it.n_samples
    eid = s.record(judge, it.series_id, steady=True, onset=onset)
    print(eid, it.series_id, onset, flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_midway_loses_nothing_reported(tmp_path):
    db = tmp_path / "crash.sqlite"
    store = st.Store(db)
    series = [Series(np.arange(500.0) * (k + 1), id=f"s{k}") for k in range(40)]
    AnnotationSession.create(store, "crash", series).judge("j", create=True)
    store.close()

    proc = subprocess.Popen([sys.executable, "-c", WORKER, str(db), "crash", "j",
                             str(N_JUDGMENTS)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    reported: list[tuple[int, str, int]] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        eid, sid, onset = line.split()
        reported.append((int(eid), sid, int(onset)))
        if len(reported) >= KILL_AFTER:
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait()
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    assert len(reported) == KILL_AFTER < N_JUDGMENTS

    reopened = st.Store(db, create=False)
    assert reopened.integrity_check() == "ok"
    with reopened.read() as conn:
        rows = {r.id: r for r in conn.execute(select(st.events.c.id, st.events.c.item_id,
                                                     st.events.c.onset, st.events.c.kind))}
    session = AnnotationSession.open(reopened, "crash")
    item_of = {it.series_id: it.id for it in session.items()}
    missing = [e for e in reported if e[0] not in rows]
    wrong = [e for e in reported if e[0] in rows and (rows[e[0]].item_id, rows[e[0]].onset)
             != (item_of[e[1]], e[2])]
    assert missing == [] and wrong == []
    # the store still works: the judge resumes and can record
    j = session.judge("j")
    before = len(session.history(j))
    assert before >= KILL_AFTER
    session.record(j, "s0", steady=False)
    assert session.label(j, "s0").steady is False
    reopened.close()
