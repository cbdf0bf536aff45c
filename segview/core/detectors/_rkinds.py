"""Names shared by the R random-stream emulation (:mod:`._rrng`) and the detectors that declare a
``sample_kind`` parameter, kept apart so that declaring the parameter does not load numba (listing
the methods must stay light: ``tests/core/test_startup.py``)."""

#: R's ``sample.kind`` values: ``"rejection"`` (R >= 3.6) and ``"rounding"`` (older R).
SAMPLE_KINDS = ("rejection", "rounding")
