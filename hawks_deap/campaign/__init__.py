"""Runs of configurations, saved: one run, suites of runs, and their provenance.

- `runs`: a problem built from settings, run, and saved (dataset, genes, metadata,
  logbook, partitions);
- `suite`: parameter-grid campaigns over processes or dask (`dask_backend`), their
  `summary` and resumption; `seed_keys`: each run's seed from a versioned key;
- `provenance`: the reproducibility contract and ``verify``;
- `hawks_json`: HAWKS 0.2.0 JSON configs as settings or suites (`hawks_schema`).
"""
