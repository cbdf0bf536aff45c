"""Worker processes, one package for every front end: the explorer's detector calls
(:class:`.runner.ProcessRunner`) and the batch engine's local executor
(:class:`segview.core.evaluation.batch.LocalExecutor`) both run in a :class:`.pool.WorkerPool`.

Modules (each imported on use: importing this package loads nothing):

* :mod:`.start` -- how a worker process starts: forked from a fork server that loaded numba once
  (Linux), else spawned;
* :mod:`.preload` -- what that fork server imports before it forks any worker;
* :mod:`.guard` -- a worker never outlives its parent and ignores Ctrl-C; interrupts are held while
  workers receive their start-up data;
* :mod:`.pool` -- the process pool: started lazily, replaced when a worker dies (a crash in compiled
  code, the OOM killer), terminated at once on Ctrl-C or cancel;
* :mod:`.runner` -- the explorer's detector calls on a pool, with cancellation and progress in
  shared memory.
"""
