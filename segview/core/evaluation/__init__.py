"""Evaluation against ground truth (RQ1), sensitivity analysis and tuning (RQ2), and the batch
engine that runs detectors over datasets. No Qt here; detectors are found only via the registry."""
