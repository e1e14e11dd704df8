"""Datasets and the files they live in.

- `dataset`: `Dataset` (X, y, genes, metadata: save, checked load, regenerate);
- `batteries`: clustering-benchmarks batteries read as datasets and written from them;
- `collection`: collections of datasets named by paths (what ``features``, ``plot`` and
  ``export`` take);
- `environment`: what a run ran on, recorded with every dataset.
"""

from hawks_deap.io.dataset import Dataset

__all__ = ["Dataset"]
