"""Annotation: judges' labels in a store, aggregation into ground truth (JAGT) (Qt-free).

Modules: ``store`` (database), ``session`` (judge-facing workflow), ``aggregate`` (JAGT rules),
``agreement`` (Fleiss' kappa, onset spread, judge bias). Labeled datasets are exported and imported
by :mod:`segview.core.export`, which uses this package and the file formats of ``core.io``; the two
never import each other (pyproject.toml's import-linter contracts).
Submodules are imported on use so that ``import segview`` stays light.
"""
