"""Datasets: plain data (X, y), the generating genes and metadata; save and load.

A saved dataset is a directory with three files:

- ``data.csv``: a header ``x0,...,x{D-1},label`` then one row per point, floats written
  with 17 significant digits (they read back bit for bit);
- ``genes.json``: the cluster sizes and, per cluster, mean, variances, rotation and
  covariance (the generating model);
- ``metadata.json``: the problem parameters, seed, package version, fitness, index
  value and constraint values.

Directories are written atomically: into a temporary sibling directory, then renamed.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from hawks_deap.genotype import Cluster, Genotype

__all__ = ["Dataset", "package_version"]

DATA_FILE = "data.csv"
GENES_FILE = "genes.json"
METADATA_FILE = "metadata.json"


def package_version() -> str:
    """The installed version of hawks-deap."""
    try:
        from importlib.metadata import version

        return version("hawks-deap")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "0+unknown"


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _dumps(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n"


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write a text file atomically (temporary file in the same folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Dataset:
    """A labelled dataset, with its generating genes and metadata.

    Parameters
    ----------
    X : array of shape (N, D)
        The points.
    y : array of shape (N,)
        Integer cluster labels.
    genotype : sequence of Cluster, optional
        The genes that generated the data (one per cluster label 0..K-1).
    metadata : dict, optional
        JSON-ready information (problem parameters, seed, fitness, ...).
    """

    def __init__(self, X: Any, y: Any, genotype: Any = None,
                 metadata: dict[str, Any] | None = None) -> None:
        self.X = np.asarray(X, dtype=np.float64)
        self.y = np.asarray(y)
        if self.X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {self.X.shape}")
        if self.y.shape != (self.X.shape[0],):
            raise ValueError(f"y must have shape ({self.X.shape[0]},), got {self.y.shape}")
        self.genotype = None if genotype is None else Genotype(genotype)
        self.metadata = dict(metadata or {})

    def __repr__(self) -> str:
        k = len(np.unique(self.y))
        return f"Dataset(n_samples={self.n_samples}, n_dims={self.n_dims}, n_clusters={k})"

    @property
    def n_samples(self) -> int:
        """Number of points N."""
        return int(self.X.shape[0])

    @property
    def n_dims(self) -> int:
        """Dimension D."""
        return int(self.X.shape[1])

    @property
    def sizes(self) -> np.ndarray:
        """Number of points per label, for labels 0..max."""
        return np.bincount(self.y.astype(np.int64))

    @classmethod
    def from_individual(cls, problem: Any, individual: Genotype,
                        extra: dict[str, Any] | None = None) -> Dataset:
        """The dataset of an evaluated individual of ``problem`` (current layout)."""
        X, y = problem.sample(individual)
        values = individual.fitness.values if individual.fitness.valid else ()
        metadata = {
            "package": "hawks-deap",
            "version": package_version(),
            "problem": problem.parameters(),
            "fitness": list(values),
            "record": dict(individual.record),
            "sizes": problem.layout.sizes.tolist(),
            **(extra or {}),
        }
        return cls(X, y, list(individual), metadata)

    def to_csv_text(self) -> str:
        """The content of ``data.csv``."""
        d = self.n_dims
        header = ",".join([f"x{i}" for i in range(d)] + ["label"])
        lines = [header]
        labels = self.y.tolist()
        for row, label in zip(self.X.tolist(), labels, strict=True):
            lines.append(",".join([f"{v:.17g}" for v in row] + [str(label)]))
        return "\n".join(lines) + "\n"

    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the dataset directory atomically; returns its path.

        Raises ``FileExistsError`` if ``path`` exists, unless ``overwrite``.
        """
        path = Path(path)
        if path.exists() and not overwrite:
            raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
        try:
            (tmp / DATA_FILE).write_text(self.to_csv_text(), encoding="utf-8")
            genes = {
                "sizes": self.sizes.tolist(),
                "clusters": [g.to_dict() for g in self.genotype] if self.genotype else [],
            }
            (tmp / GENES_FILE).write_text(_dumps(genes), encoding="utf-8")
            (tmp / METADATA_FILE).write_text(_dumps(self.metadata), encoding="utf-8")
            if path.exists():
                old = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.",
                                            suffix=".old"))
                os.replace(path, old / "x")
                os.replace(tmp, path)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> Dataset:
        """Read a dataset directory written by `save`."""
        path = Path(path)
        if not (path / DATA_FILE).is_file():
            raise FileNotFoundError(f"{path} is not a dataset directory (no {DATA_FILE})")
        raw = np.loadtxt(path / DATA_FILE, delimiter=",", skiprows=1, ndmin=2)
        X, y = raw[:, :-1], raw[:, -1].astype(np.int64)
        genotype = None
        genes_path = path / GENES_FILE
        if genes_path.is_file():
            genes = json.loads(genes_path.read_text(encoding="utf-8"))
            clusters = [Cluster.from_dict(c) for c in genes.get("clusters", [])]
            genotype = clusters or None
        metadata = {}
        if (path / METADATA_FILE).is_file():
            metadata = json.loads((path / METADATA_FILE).read_text(encoding="utf-8"))
        return cls(X, y, genotype, metadata)
