"""Imported once, by the detector workers' fork server (:mod:`segview.core.workers.start`).

Loads what every worker needs before the server forks any: numpy, the detectors' registrations,
numba with its compiler registries (which import scipy.linalg), the detectors' kernel modules (not
their compiled code: nothing runs, so no numba thread pool exists when the server forks) and the
small scipy parts detectors use. Then ``gc.freeze()`` keeps the collector from writing to these
objects in the workers, which would copy their pages.

Importing this module never raises: a failure only means each worker loads the rest itself.
"""
from __future__ import annotations

import gc
import importlib
import logging

log = logging.getLogger(__name__)

#: Modules every worker of a run-all uses (kernel modules: their dispatchers, not compiled code).
MODULES = (
    "numpy",
    "segview.core.workers.runner",
    "segview.core.detectors",
    "numba",
    "segview.core.detectors._cost_kernels",
    "segview.core.detectors._partition_kernels",
    "segview.core.detectors._multivariate_kernels",
    "segview.core.detectors._fpop_kernels",
    "segview.core.detectors._rfpop_kernels",
    "segview.core.detectors._kbkssd_kernels",
    "segview.core.detectors._fisher_kernels",
    "segview.core.detectors._autoparm_kernels",
    "segview.core.detectors._pmnf_kernels",
    "segview.core.detectors._stats_kernels",
    "segview.core.detectors._pelt_r",
    "segview.core.detectors._pcg64",
    "segview.core.detectors._bocpd_fused",
    "scipy.ndimage",
    "scipy.special",
)


def preload() -> None:
    for name in MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001  (best effort: the worker imports it when needed)
            log.debug("fork server preload: %s failed", name, exc_info=True)
    try:  # numba's typing and lowering registries: filled at a process's first compile or load
        from numba.core.registry import cpu_target

        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()
    except Exception:  # noqa: BLE001
        log.debug("fork server preload: numba registries failed", exc_info=True)


preload()
gc.freeze()
