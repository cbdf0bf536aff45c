"""Annotation: judges' labels in a store, aggregation into ground truth (JAGT), export (Qt-free).

Modules: ``store`` (database), ``session`` (judge-facing workflow), ``aggregate`` (JAGT rules),
``agreement`` (Fleiss' kappa, onset spread, judge bias), ``export`` (labeled datasets).
Submodules are imported on use so that ``import segview`` stays light.
"""
