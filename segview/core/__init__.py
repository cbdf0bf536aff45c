"""segview's Qt-free core: data model, detectors, IO, annotation, evaluation."""
