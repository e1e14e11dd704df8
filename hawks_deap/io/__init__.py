"""Datasets and the files they live in.

- `dataset`: `Dataset` (X, y, genes, metadata, name: save, checked load, regenerate);
- `run_files`: a run's directory (the dataset, ``logbook.csv``, ``partitions.csv``):
  `save_run` (what `hawks_deap.Result.save` and the command line write) and its readers;
- `batteries`: clustering-benchmarks batteries read as datasets and written from them;
- `collection`: collections of datasets named by paths (what ``features``, ``plot`` and
  ``export`` take), loaded by `load_collection`;
- `environment`: what a run ran on, recorded with every dataset.
"""

from hawks_deap.io.collection import load_collection
from hawks_deap.io.dataset import Dataset
from hawks_deap.io.run_files import (
    LOGBOOK_FILE,
    PARTITIONS_FILE,
    read_logbook_csv,
    read_partitions_csv,
    save_run,
)

__all__ = ["LOGBOOK_FILE", "PARTITIONS_FILE", "Dataset", "load_collection",
           "read_logbook_csv", "read_partitions_csv", "save_run"]
