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

import contextlib
import io
import json
import os
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from hawks_deap._util.files import check_npz_arrays, read_json, read_text, short_repr
from hawks_deap._util.writes import (
    file_identity,
    publish_dir,
    remove_own_file,
    remove_tree,
    sync_dir,
    temp_dir,
    write_file_atomic,
    write_synced,
)
from hawks_deap.genome.genotype import Cluster, Genotype

__all__ = ["DATA_FORMATS", "OWN_FILES", "Dataset", "check_replaceable", "files_are_whole",
           "is_dataset_dir", "package_version"]

DATA_FILE = "data.csv"
#: The compressed alternative to ``data.csv`` (``format="npz"``): arrays ``X`` and ``y``.
DATA_NPZ = "data.npz"
#: Formats of a dataset's points: CSV text (17 significant digits) or compressed npz.
DATA_FORMATS = ("csv", "npz")
GENES_FILE = "genes.json"
METADATA_FILE = "metadata.json"
#: A run's logbook, one row per generation (`hawks_deap.campaign.runs`).
LOGBOOK_FILE = "logbook.csv"
#: A Versus run's partitions: both algorithms' labels on the saved points.
PARTITIONS_FILE = "partitions.csv"
#: The figures ``hawks-deap plot`` writes into a run's directory.
FIGURE_FILES = ("dataset.png", "convergence.png", "versus.png")
#: Every file hawks-deap writes into a dataset's directory: ``overwrite`` replaces a
#: directory that holds nothing else (`check_replaceable`).
OWN_FILES = frozenset({DATA_FILE, DATA_NPZ, GENES_FILE, METADATA_FILE, LOGBOOK_FILE,
                       PARTITIONS_FILE, *FIGURE_FILES})


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


def _check_json_ready(value: Any, where: str) -> None:
    """``TypeError`` naming the first entry of ``value`` that `_dumps` cannot write."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str | int | float | bool | type(None)):
                raise TypeError(f"{where} has the key {key!r}, a {type(key).__name__}: JSON "
                                "keys are strings (or numbers, booleans, None)")
            _check_json_ready(item, f"{where}[{key!r}]")
        try:  # `_dumps` sorts the keys: one kind of key per object
            sorted(value)
        except TypeError:
            raise TypeError(f"{where} mixes keys of kinds that cannot be sorted together "
                            f"({', '.join(sorted({type(k).__name__ for k in value}))}); "
                            "use strings") from None
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check_json_ready(item, f"{where}[{i}]")
    elif isinstance(value, np.ndarray):  # (by its dtype: its tolist() is what is written)
        if value.dtype.kind not in "biufU":
            raise TypeError(f"{where} is not JSON-ready: an array of {value.dtype} (arrays of "
                            "numbers, booleans or strings)")
    elif not isinstance(value, str | int | float | bool | type(None)):
        try:
            _json_default(value)
        except TypeError:
            raise TypeError(f"{where} is not JSON-ready: a {type(value).__name__} (numbers, "
                            "strings, booleans, None, lists and dicts of them, numpy "
                            "scalars and arrays)") from None


def _check_extra_files(extra_files: Any) -> dict[str, str]:
    """`Dataset.save`'s ``extra_files``, checked before anything is written."""
    if extra_files is None:
        return {}
    if not isinstance(extra_files, Mapping):
        raise TypeError(f"extra_files must be a mapping of file names to text, got "
                        f"{type(extra_files).__name__}")
    reserved = (DATA_FILE, DATA_NPZ, GENES_FILE, METADATA_FILE)
    for name, text in extra_files.items():
        if (not isinstance(name, str) or name in ("", ".", "..") or Path(name).name != name
                or "\\" in name or name in reserved):
            raise ValueError(f"extra_files: invalid file name {name!r} (a plain file name, "
                             f"not one of {', '.join(reserved)})")
        if not isinstance(text, str):
            raise TypeError(f"extra_files[{name!r}] must be a str, got {type(text).__name__}")
    return dict(extra_files)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n"


def is_dataset_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a saved dataset (``data.csv`` or ``data.npz``).

    Parameters
    ----------
    path : str or os.PathLike
        Any path (False if it is not such a directory; the files are not read).
    """
    path = Path(path)
    return (path / DATA_FILE).is_file() or (path / DATA_NPZ).is_file()


def csv_has_rows(path: Path, n_rows: int) -> bool:
    """Whether a csv file hawks-deap wrote holds its header and ``n_rows`` rows, whole.

    Every line ends with a newline, so a file cut short has fewer of them or does not
    end with one (the cheap test of `files_are_whole` and of a run's own files). OSError
    if it cannot be read.
    """
    data = path.read_bytes()
    return data.endswith(b"\n") and data.count(b"\n") == n_rows + 1


def files_are_whole(path: str | os.PathLike, n_points: int) -> bool:
    """Whether the points' file and ``genes.json`` of a saved dataset are whole, cheaply.

    `save` renames a directory into place once every file is written, so a directory at
    its final path lacks part of a file only if the disk lost it (what was not yet synced
    when the machine stopped: files cut short or empty). This finds such a file without
    parsing a number (`Dataset.load` checks every value, at a cost that grows with the
    data): exactly one points' file, ``data.csv`` holding its header and ``n_points``
    rows, the last one ended, or ``data.npz`` whose members pass their checksums;
    ``genes.json`` ending its JSON object (written indented by `save`: only the closing
    brace starts a line). The caller reads ``metadata.json`` (for ``n_points``). Every
    prefix of a whole file is found.

    Parameters
    ----------
    path : str or os.PathLike
        The dataset's directory.
    n_points : int
        N, the rows ``data.csv`` must hold after its header (not used for ``data.npz``).

    Returns
    -------
    bool
        False also when a file cannot be read (it never raises for a damaged file).
    """
    path = Path(path)
    csv_file, npz_file = path / DATA_FILE, path / DATA_NPZ
    try:
        if csv_file.is_file() == npz_file.is_file():  # neither, or both
            return False
        if csv_file.is_file():
            if not csv_has_rows(csv_file, n_points):
                return False
        else:
            with zipfile.ZipFile(npz_file) as archive:
                if archive.testzip() is not None:
                    return False
        return (path / GENES_FILE).read_bytes().endswith(b"\n}\n")
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError,
            RuntimeError, ValueError):  # zipfile's too: an unknown compression, encryption
        return False


def check_replaceable(path: str | os.PathLike, *, shown: str | os.PathLike | None = None,
                      by: str = "an overwrite") -> None:
    """Raise unless ``path`` is a directory hawks-deap may replace, with nothing lost.

    That is a real directory (not a symbolic link) that neither is nor contains the
    working directory, and is empty, or says in its ``metadata.json`` that hawks-deap
    wrote it, holds none but the files hawks-deap writes (`OWN_FILES`; a user's own
    files or folders are never deleted by an overwrite) and is writable (its files can
    be deleted).

    Parameters
    ----------
    path : str or os.PathLike
        The directory an overwrite would replace.
    shown : str or os.PathLike, optional
        The name messages give it (default ``path``; `Dataset.save` checks the folder
        once moved aside, under a hidden name).
    by : str
        What would replace it, for the messages (``"a suite"`` redoing a run).

    Raises
    ------
    ValueError
        Naming the directory and what keeps it from being replaced.
    """
    path = Path(path)
    shown = path if shown is None else shown
    if path.is_symlink() or not path.is_dir():
        raise ValueError(f"{shown} is not a directory written by hawks-deap; {by} only "
                         "replaces those")
    with contextlib.suppress(OSError):  # (a working directory that was deleted: no such)
        cwd, resolved = Path.cwd().resolve(), path.resolve()
        if resolved == cwd or resolved in cwd.parents:
            raise ValueError(f"{shown} is or contains the working directory ({cwd}); {by} "
                             "cannot replace it: run it from another folder")
    entries = list(path.iterdir())
    if not entries:
        return
    try:
        metadata = read_json(path / METADATA_FILE)  # (ValueError: also nested too deeply)
    except ValueError:
        metadata = None
    if not isinstance(metadata, dict) or metadata.get("package") != "hawks-deap":
        raise ValueError(f"{shown} is not a hawks-deap output directory (its {METADATA_FILE} "
                         f"does not say hawks-deap wrote it); {by} only replaces those")
    others = sorted(p.name for p in entries if p.name not in OWN_FILES or not p.is_file()
                    or p.is_symlink())
    if not others:  # hawks-deap's names: each must also hold what hawks-deap writes there
        others = _not_written_by_us(path, [p.name for p in entries])
    if others:
        listed = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5
                                          else "")
        raise ValueError(f"{shown} also holds files hawks-deap did not write ({listed}); "
                         f"{by} only replaces a directory that holds nothing else")
    if not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"{shown} is not writable: {by} could not delete its files")


#: PNG figures hawks-deap writes carry this text under their ``Software`` key
#: (`hawks_deap.analysis.plotting.figure_bytes`).
FIGURE_MARK = "hawks-deap"
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _not_written_by_us(path: Path, names: list[str]) -> list[str]:
    """Which of a folder's files under hawks-deap's names hold what hawks-deap does not write.

    A user's own ``data.npz`` beside a CSV run's ``data.csv`` (a run writes one of the
    two), ``partitions.csv`` or ``logbook.csv`` of other columns, or a figure that
    ``hawks-deap plot`` did not draw: the name alone would let an overwrite delete them.
    """
    odd = [n for n in (DATA_FILE, DATA_NPZ) if n in names] if (
        DATA_FILE in names and DATA_NPZ in names) else []
    # the first column of the header each writes (`hawks_deap.io.run_files`)
    for name, column in ((PARTITIONS_FILE, b"winner"), (LOGBOOK_FILE, b"gen")):
        if name in names:
            try:
                with open(path / name, "rb") as fh:
                    first = fh.read(len(column) + 1)
            except OSError:
                first = b"?"  # unreadable: not known to be ours
            if first and first not in (column + b",", column + b"\n", column + b"\r"):
                odd.append(name)
    odd.extend(n for n in FIGURE_FILES if n in names and not _marked_png(path / n))
    return sorted(odd)


def _marked_png(path: Path) -> bool:
    """Whether a PNG's text chunks, before its image data, name hawks-deap as its software."""
    try:
        return _png_software(path).startswith(FIGURE_MARK.encode())
    except OSError:
        return False


def _png_software(path: Path) -> bytes:
    """The ``Software`` text of a PNG (b"" if it has none, or is no PNG)."""
    with open(path, "rb") as fh:
        if fh.read(8) != _PNG_SIGNATURE:
            return b""
        while True:
            head = fh.read(8)
            if len(head) < 8 or head[4:] in (b"IDAT", b"IEND"):
                return b""
            size = int.from_bytes(head[:4], "big")
            if head[4:] == b"tEXt" and size < 4096:
                key, _, text = fh.read(size).partition(b"\0")
                if key == b"Software":
                    return text
                fh.seek(4, os.SEEK_CUR)  # the chunk's CRC
            else:
                fh.seek(size + 4, os.SEEK_CUR)


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write a file atomically: a temporary file in the same folder, synced, renamed.

    Readers see the old content or the new one, never a part; an interrupted write
    leaves at most a hidden ``.NAME.*.tmp`` file behind.
    """
    write_file_atomic(path, data)


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write a UTF-8 text file atomically (see `write_bytes_atomic`)."""
    write_bytes_atomic(path, text.encode("utf-8"))


class CreatedFiles:
    """Files a command writes, so that a command stopped part way leaves none it created.

    `write` writes a file atomically and remembers it when it did not exist before;
    inside ``with files.removed_on(errors):`` such an error (or interruption) removes
    every file remembered and is raised again. Files that existed are replaced, never
    removed: their old content is gone with the first write.
    """

    def __init__(self) -> None:
        self.paths: list[Path] = []
        self._identities: list[tuple[int, int]] = []

    def write(self, path: str | os.PathLike, data: bytes) -> Path:
        """Write ``data`` to ``path`` (`write_bytes_atomic`); return the path.

        A new file never replaces one that appeared meanwhile (``FileExistsError``).
        """
        path = Path(path)
        new = not os.path.lexists(path)
        identity = write_file_atomic(path, data, replace=not new)
        if new:
            self.paths.append(path)
            self._identities.append(identity)
        return path

    @contextlib.contextmanager
    def removed_on(self, *errors: type[BaseException]) -> Iterator[None]:
        """Remove the files created so far when the block raises one of ``errors``."""
        try:
            yield
        except errors:  # only the very files written (whatever their path now leads to)
            for path, identity in zip(self.paths, self._identities, strict=True):
                remove_own_file(path, identity)
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
        from hawks_deap._util.validation import check_X

        # what save writes, load must read back: finite X, labels, proper genes of X's D
        self.X = check_X(X)
        self.y = _integer_labels(y)
        if self.y.shape != (self.X.shape[0],):
            raise ValueError(f"y must have shape ({self.X.shape[0]},), got {self.y.shape}")
        if metadata is not None and not isinstance(metadata, Mapping):
            raise TypeError(f"metadata must be a dict (JSON-ready) or None, got "
                            f"{type(metadata).__name__}")
        self.metadata = dict(metadata or {})
        _check_json_ready(self.metadata, "metadata")  # (save would fail after the run)
        clustered = self.y[~self.noise_mask]
        if clustered.size and clustered.min() < 0:
            raise ValueError(f"y has the negative label {int(clustered.min())}; cluster "
                             "labels are 0, 1, ... (a noise label must be named in "
                             "metadata['noise_label'])")
        if clustered.size and clustered.max() >= len(self.y):
            # (`sizes` counts every label 0..max: 2**40 would need 8 TiB)
            raise ValueError(f"y has the label {int(clustered.max())}, not a cluster index "
                             f"of {len(self.y)} points (0..N-1 at most); number the clusters "
                             "0, 1, ... (numpy.unique(y, return_inverse=True)[1])")
        self.genotype = None
        if genotype is not None and not isinstance(genotype, Iterable):
            raise TypeError(f"genotype must be a sequence of Cluster genes or None, got "
                            f"{type(genotype).__name__}")
        genes = None if genotype is None else list(genotype)
        if genes:  # (no genes, as load reads an empty list: none)
            _check_genes(genes, self.X.shape[1], "genotype: ")
            if clustered.size and clustered.max() >= len(genes):
                raise ValueError(f"y has the label {int(clustered.max())}, but the genotype "
                                 f"has {len(genes)} genes (one per label 0..K-1)")
            self.genotype = Genotype(genes)

    def __repr__(self) -> str:
        k = len(np.unique(self.y[~self.noise_mask]))  # (noise is no cluster)
        return f"Dataset(n_samples={self.n_samples}, n_dims={self.n_dims}, n_clusters={k})"

    def _repr_html_(self) -> str:
        from hawks_deap._util.html import html_table

        noise = self.noise_mask
        labels, sizes = np.unique(self.y[~noise], return_counts=True)
        rows = [["points N", str(self.n_samples)], ["dimensions D", str(self.n_dims)],
                ["clusters K", str(len(labels))],
                ["sizes", ", ".join(f"{lab}: {n}" for lab, n in zip(labels.tolist(),
                                                                   sizes.tolist(),
                                                                   strict=True))],
                *([["noise points", str(int(noise.sum()))]] if noise.any() else []),
                ["genes", "yes" if self.genotype is not None else "no"]]
        record = self.metadata.get("record") or {}
        rows += [[key, f"{record[key]:.6g}"] for key in ("index", "overlap", "penalty")
                 if isinstance(record.get(key), int | float)]
        if self.metadata.get("seed") is not None:
            rows.append(["seed", str(self.metadata["seed"])])
        return html_table(["Dataset", ""], rows)

    @property
    def name(self) -> str | None:
        """The dataset's name: its row name in tables, or None.

        Held in ``metadata["name"]``, so `save` and `load` keep it and
        `hawks_deap.analysis.features.features_table` names rows by it. A collection's
        loader sets it (`hawks_deap.io.collection.load_collection`: a run by its folder,
        a battery's dataset as ``"battery/dataset"``); so does
        `hawks_deap.io.batteries.read_battery_dataset`.
        """
        return self._text("name")

    @name.setter
    def name(self, value: str | None) -> None:
        self._set_text("name", value)

    @property
    def source(self) -> str | None:
        """Where the dataset comes from in a collection, or None.

        Held in ``metadata["source"]``. A collection's loader sets it
        (`hawks_deap.io.collection.load_collection`: a suite's name for its runs, the
        battery for its datasets, else the dataset directory's parent folder), as the
        ``plot`` command colours and ``export --format isa`` labels instances.
        """
        return self._text("source")

    @source.setter
    def source(self, value: str | None) -> None:
        self._set_text("source", value)

    def _text(self, key: str) -> str | None:
        value = self.metadata.get(key)
        return None if value is None else str(value)

    def _set_text(self, key: str, value: str | None) -> None:
        if value is None:
            self.metadata.pop(key, None)
            return
        if not isinstance(value, str) or not value:
            raise TypeError(f"{key} must be a non-empty str or None, got {value!r} "
                            f"({type(value).__name__})")
        self.metadata[key] = value

    @property
    def n_samples(self) -> int:
        """Number of points N."""
        return int(self.X.shape[0])

    @property
    def n_dims(self) -> int:
        """Dimension D."""
        return int(self.X.shape[1])

    @property
    def noise_mask(self) -> np.ndarray:
        """The points that belong to no cluster (a boolean mask).

        Those labelled ``metadata["noise_label"]`` (e.g. a battery's -1,
        `hawks_deap.io.batteries`); none when the metadata names no such label.
        """
        return _noise_mask(self.y, self.metadata.get("noise_label"))

    @property
    def sizes(self) -> np.ndarray:
        """Number of points per label, for labels 0..max, noise (`noise_mask`) left out."""
        return np.bincount(self.y[~self.noise_mask].astype(np.int64))

    def regenerate(self, n_samples: int | None = None, seed: object = None) -> Dataset:
        """A fresh sample of any size from the generating model (the genes).

        Cluster k keeps its share of the points: the sizes are ``n w_k`` rounded by the
        largest-remainder rule, where ``w_k = n_k / N`` are the shares of this dataset,
        so they sum exactly to ``n`` (and equal this dataset's sizes for ``n = N``); a
        cluster that would get no point takes one from the largest. The points
        of cluster k are ``mu_k + z diag(sqrt(lambda_k)) R_k^T`` with fresh
        standard-normal rows ``z`` (the same model as during evolution, new draws).

        Parameters
        ----------
        n_samples : int, optional
            Number of points n (>= K); default: the size of this dataset.
        seed : int, SeedSequence, Generator or None
            Source of the fresh draws (the global numpy state is never used).

        Returns
        -------
        Dataset
            Labels 0..K-1 in gene order, the same genes, and this dataset's metadata
            plus ``"regenerated": {"n_samples", "seed", "sizes"}``.

        Raises
        ------
        ValueError
            If the dataset has no genes, or its labels are not 0..K-1 for K genes.
        """
        from hawks_deap._util.validation import as_generator, check_int

        if not self.genotype:
            raise ValueError("regenerate needs the generating genes; this dataset has none "
                             "(genotype is None: was genes.json missing?)")
        k = len(self.genotype)
        labels = self.y.astype(np.int64)
        if labels.size and (labels.min() < 0 or labels.max() >= k):
            raise ValueError(f"labels must be 0..{k - 1} (one per gene) to regenerate, got "
                             f"values in [{labels.min()}, {labels.max()}]")
        n = self.n_samples if n_samples is None else check_int("n_samples", n_samples,
                                                                  minimum=k)
        from hawks_deap._util.memory import check_fits, sample_bytes

        check_fits("regenerating the dataset", sample_bytes(n, self.n_dims),
                   {"n_samples": n, "n_dims": self.n_dims})
        if n < k:
            raise ValueError(f"n_samples must be >= the number of clusters {k}, got {n}")
        rng = as_generator(seed)
        counts = np.bincount(labels, minlength=k).astype(float)
        weights = counts / counts.sum() if counts.sum() > 0 else np.full(k, 1.0 / k)
        exact = weights * n
        sizes = np.floor(exact).astype(np.int64)
        order = np.argsort(-(exact - sizes), kind="stable")
        sizes[order[: n - int(sizes.sum())]] += 1
        for empty in np.flatnonzero(sizes == 0):  # every cluster keeps at least one point
            sizes[int(np.argmax(sizes))] -= 1
            sizes[empty] = 1
        X = np.concatenate([gene.sample(rng.standard_normal((int(m), gene.n_dims)))
                            for gene, m in zip(self.genotype, sizes, strict=True)])
        y = np.repeat(np.arange(k), sizes)
        seed_info = int(seed) if isinstance(seed, (int, np.integer)) else None
        metadata = {**self.metadata, "regenerated": {"n_samples": n, "seed": seed_info,
                                                     "sizes": sizes.tolist()}}
        return Dataset(X, y, list(self.genotype), metadata)

    @classmethod
    def from_individual(cls, problem: Any, individual: Genotype,
                        extra: dict[str, Any] | None = None) -> Dataset:
        """The dataset of an evaluated individual of ``problem`` (current layout).

        Raises ``ValueError`` if the individual was evaluated on another layout (the
        problem was prepared again since, by another run or toolbox): its genes would
        give another dataset than the one its fitness measured.

        Parameters
        ----------
        problem : Problem
            The run's prepared problem (its `sample`, ``layout`` and ``parameters()``).
        individual : Genotype
            An individual of it (else a TypeError); unevaluated: empty ``"fitness"``.
        extra : dict, optional
            More metadata, merged last (overriding the keys below).

        Returns
        -------
        Dataset
            Metadata: package, version, problem, fitness, record, sizes, environment
            (`hawks_deap.io.environment.environment`: what it ran on), then ``extra``.
        """
        if not isinstance(individual, Genotype):
            raise TypeError(f"individual must be a Genotype (an individual of the run), got "
                            f"{type(individual).__name__}")
        key = getattr(individual.fitness, "layout_key", None)
        if key is not None and problem.layout is not None and key != problem.layout.key:
            raise ValueError("this individual was evaluated on another layout than the "
                             "problem's current one (the problem was prepared again since, "
                             "by another run or toolbox): use the Result of its run "
                             "(result.dataset(individual)), or the toolbox's own problem "
                             "(Dataset.from_individual(toolbox.problem, individual)), which "
                             "keep its layout")
        from hawks_deap.io.environment import environment

        X, y = problem.sample(individual)
        values = individual.fitness.values if individual.fitness.valid else ()
        metadata = {
            "package": "hawks-deap",
            "version": package_version(),
            "problem": problem.parameters(),
            "fitness": list(values),
            "record": dict(individual.record),
            "sizes": problem.layout.sizes.tolist(),
            "environment": environment(),
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

    def to_npz_bytes(self) -> bytes:
        """The content of ``data.npz``: arrays ``X`` (float) and ``y`` (integer labels)."""
        buffer = io.BytesIO()
        np.savez_compressed(buffer, X=self.X, y=np.asarray(self.y, dtype=np.int64))
        return buffer.getvalue()

    def files(self, format: str = "csv") -> dict[str, bytes]:  # noqa: A002
        """The files `save` writes for this dataset, by name (without ``extra_files``).

        Parameters
        ----------
        format : {"csv", "npz"}
            The file of the points (see `save`).

        Returns
        -------
        dict of str to bytes
            The points' file, ``genes.json`` and ``metadata.json``.
        """
        from hawks_deap._util.validation import check_choice

        check_choice("format", format, DATA_FORMATS)
        points = ({DATA_FILE: self.to_csv_text().encode("utf-8")} if format == "csv"
                  else {DATA_NPZ: self.to_npz_bytes()})
        genes = {
            "sizes": self.sizes.tolist(),
            "clusters": [g.to_dict() for g in self.genotype] if self.genotype else [],
        }
        # the mark `check_replaceable` looks for (runs' metadata have it already); a
        # user's own "package" entry would hide it (`save` refuses that first)
        metadata = {"package": "hawks-deap", **self.metadata}
        return {**points, GENES_FILE: _dumps(genes).encode("utf-8"),
                METADATA_FILE: _dumps(metadata).encode("utf-8")}

    def save(self, path: str | os.PathLike, *, overwrite: bool = False,
             extra_files: Mapping[str, str] | None = None, format: str = "csv",  # noqa: A002
             keep_if_taken: bool = False) -> Path:
        """Write the dataset directory atomically; returns its path.

        Parameters
        ----------
        path : path
            The directory to write.
        overwrite : bool
            Replace an existing directory that hawks-deap wrote and that holds nothing
            but its files (`check_replaceable`; anything else raises ``ValueError``
            before any work); otherwise raise ``FileExistsError``. The folder found at
            the end is moved aside, checked again and deleted only then; if the check
            or the replacement fails, it is put back. Nothing found at ``path`` at the
            end is ever replaced unchecked: then ``FileExistsError`` (a
            `hawks_deap._util.writes.NotReplacedError`) names the visible sibling
            ``NAME.kept-HEX`` that holds the new dataset.
        extra_files : mapping, optional
            More text files to write into the directory (name -> content), as part of
            the same atomic write (e.g. a run's logbook). A name other than hawks-deap's
            own (`OWN_FILES`: ``logbook.csv``, ``partitions.csv``, the figures) makes
            the folder one that a later ``overwrite=True`` refuses: it replaces only
            folders holding nothing but hawks-deap's files.
        format : {"csv", "npz"}
            The points as ``data.csv`` (text, 17 significant digits: they read back bit
            for bit) or ``data.npz`` (compressed binary arrays, exact; integer labels).
        keep_if_taken : bool
            For a path checked free (or replaceable) before a long computation: when
            something that may not be replaced is there now, write the dataset anyway,
            to ``NAME.kept-HEX`` beside it, and raise the `NotReplacedError` that names
            it (the command line's runs: finished work is never thrown away). Default:
            raise before writing anything.

        Raises
        ------
        ValueError
            Before anything is written: a folder ``overwrite`` may not replace, or a
            ``metadata["package"]`` other than ``"hawks-deap"`` (that entry marks the
            folders hawks-deap writes).
        """
        from hawks_deap._util.validation import check_bool, check_choice

        overwrite = check_bool("overwrite", overwrite)
        check_choice("format", format, DATA_FORMATS)  # (labels are integers: __init__)
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"path must be a str or os.PathLike, got {path!r} "
                            f"({type(path).__name__})")
        extra = _check_extra_files(extra_files)
        marked = self.metadata.get("package", "hawks-deap")
        if marked != "hawks-deap":  # (it would hide the mark: never replaceable again)
            raise ValueError(f"metadata['package'] = {short_repr(marked)}: that entry marks "
                             "the folders hawks-deap writes (and may later replace); give "
                             "yours another name")
        keep_if_taken = check_bool("keep_if_taken", keep_if_taken)
        path = Path(path)
        target = Path(os.path.abspath(path))  # (a NAME even for "." or "a/..")
        replace = overwrite
        if os.path.lexists(target):
            try:
                if not overwrite:
                    raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
                check_replaceable(target, shown=path)
            except (FileExistsError, ValueError):
                if not keep_if_taken:
                    raise
                replace = False  # left as it is; the dataset goes to NAME.kept-HEX
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = temp_dir(target.parent, f".{target.name}.", ".tmp")
        identity = file_identity(tmp)
        try:
            # every file synced before the folder's rename, and the rename after it: a
            # machine that stops finds the old folder or the new one, whole
            for name, data in self.files(format).items():
                write_synced(tmp / name, data)
            for name, text in extra.items():
                write_synced(tmp / name, text.encode("utf-8"))
            sync_dir(tmp)
            publish_dir(tmp, target, overwrite=replace, names=OWN_FILES, shown=path,
                        check=lambda aside: check_replaceable(aside, shown=path))
        except BaseException:
            remove_tree(tmp, identity)  # (gone when renamed, kept or in place)
            raise
        sync_dir(target.parent)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> Dataset:
        """Read a dataset directory written by `save`, checking every file.

        Parameters
        ----------
        path : str or os.PathLike
            The dataset's directory; ``genes.json`` (without it, or with no clusters in
            it, the genes are None) and ``metadata.json`` (else {}) are optional.

        Returns
        -------
        Dataset

        Raises
        ------
        FileNotFoundError
            If the directory has neither ``data.csv`` nor ``data.npz``.
        ValueError
            If it holds both; otherwise naming the file and what is wrong: a header
            that is not ``x0,...,label``, ragged or non-numeric rows (``#`` too), no
            rows, non-finite coordinates, non-integer labels; npz headers claiming more
            than the machine's memory; genes that are not a JSON object with ``sizes``
            and ``clusters``, sizes that do not match the data (naming the short file),
            genes of another dimension, rotations that are not proper; metadata that is
            not a JSON object, or whose ``noise_label`` is not one integer; JSON too
            deep to parse.
        """
        path = Path(path)
        if not is_dataset_dir(path):
            raise FileNotFoundError(f"{path} is not a dataset directory (no {DATA_FILE} or "
                                    f"{DATA_NPZ})")
        if (path / DATA_FILE).is_file() and (path / DATA_NPZ).is_file():
            raise ValueError(f"{path} holds both {DATA_FILE} and {DATA_NPZ}: keep one")
        if (path / DATA_FILE).is_file():
            X, y = _read_data(path / DATA_FILE)
        else:
            X, y = _read_npz(path / DATA_NPZ)
        metadata = {}
        if (path / METADATA_FILE).is_file():
            metadata = _read_json_object(path / METADATA_FILE)
        genotype = None
        noise = _noise_mask(y, metadata.get("noise_label"), f"{path / METADATA_FILE}: ")
        data_file = path / (DATA_FILE if (path / DATA_FILE).is_file() else DATA_NPZ)
        if (path / GENES_FILE).is_file():
            genotype = _read_genes(path / GENES_FILE, X, y[~noise], data_file) or None
        try:  # what the files hold together (e.g. a negative label, a scale): named too
            return cls(X, y, genotype, metadata)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{data_file}: {error}") from None


def _integer_labels(y: Any) -> np.ndarray:
    """``y`` as integers: bools and integer-valued floats converted, anything else refused."""
    y = np.asarray(y)
    if y.dtype.kind == "b" or (y.dtype.kind == "f" and np.isfinite(y).all()
                               and (y == np.round(y)).all()
                               and (not y.size or np.abs(y).max() < 2.0**53)):  # exact
        return y.astype(np.int64)
    if y.dtype.kind not in "iu":
        raise ValueError(f"y must hold integer cluster labels, got dtype {y.dtype} "
                         f"(e.g. {y.reshape(-1)[:1].tolist()})")
    return y


def _noise_mask(y: np.ndarray, noise_label: Any, where: str = "metadata ") -> np.ndarray:
    """The points labelled ``noise_label`` (one integer label, or None: no noise)."""
    if noise_label is None:
        return np.zeros(len(y), bool)
    if not isinstance(noise_label, int | np.integer) or isinstance(noise_label, bool):
        raise ValueError(f"{where}noise_label must be one integer label (or null), got "
                         f"{short_repr(noise_label)}")
    return np.asarray(y) == noise_label


def _read_json_object(path: Path) -> dict[str, Any]:
    data = read_json(path)  # (ValueError naming the file: invalid, too deep, not UTF-8)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must hold a JSON object, got {type(data).__name__}")
    return data


def _read_data(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """X and integer labels of a ``data.csv``, checked (errors name the file)."""
    text = read_text(path)  # (ValueError naming the file: unreadable, not UTF-8)
    header = text.split("\n", 1)[0].strip().split(",")
    d = len(header) - 1
    if d < 1 or header != [f"x{i}" for i in range(d)] + ["label"]:
        raise ValueError(f"{path}: the header must be x0,...,x{{D-1}},label (D >= 1), got "
                         f"{short_repr(','.join(header))}")
    if not text.partition("\n")[2].strip():
        raise ValueError(f"{path}: holds no points")
    try:  # (no comment character: a row starting with "#" is refused, never skipped)
        raw = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1, ndmin=2, comments=None)
    except ValueError as error:  # (numpy's advice on `usecols` is not for this file)
        why = _bad_line(text, header) or str(error).split("; use `usecols`")[0]
        raise ValueError(f"{path}: rows must hold {d + 1} numbers each ({why})") from None
    if raw.shape[0] == 0:
        raise ValueError(f"{path}: holds no points")
    if raw.shape[1] != d + 1:
        raise ValueError(f"{path}: rows hold {raw.shape[1]} values, the header {d + 1}")
    # the file's line of each row (numpy skips blank lines; the messages count them)
    lines = np.array([number for number, line in enumerate(text.split("\n")[1:], start=2)
                      if line.strip()])
    return _checked_points(path, raw[:, :-1], raw[:, -1], first_row=lines, unit="line")


def _bad_line(text: str, header: list[str]) -> str | None:
    """The first line of a ``data.csv`` that is not all numbers, as the file counts it.

    numpy's message counts data rows and columns from 0; the other messages count the
    file's lines from 1 (the header is line 1). None if no line is found bad this way.
    """
    for number, line in enumerate(text.split("\n")[1:], start=2):
        if not line.strip():
            continue
        cells = line.split(",")
        if len(cells) != len(header):
            return f"line {number} holds {len(cells)} values, the header {len(header)}"
        for column, cell in zip(header, cells, strict=True):
            try:
                float(cell)
                if "_" in cell:  # Python's float reads 1_000, numpy's parser does not
                    raise ValueError(cell)
            except ValueError:
                return f"line {number}, column {column}: {short_repr(cell)} is not a number"
    return None


def _read_npz(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """X and integer labels of a ``data.npz``, checked (errors name the file)."""
    check_npz_arrays(path)  # (the headers' shapes, before any array is allocated)
    try:
        with np.load(path, allow_pickle=False) as data:
            X, labels = np.asarray(data["X"]), np.asarray(data["y"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error,
            NotImplementedError, RuntimeError) as error:  # (zipfile's: damaged, encrypted)
        raise ValueError(f"{path}: not a dataset (an npz file with arrays X and y): "
                         f"{error}") from None
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0 or X.dtype.kind not in "iuf":
        raise ValueError(f"{path}: X must be a non-empty 2-D numeric array, got shape "
                         f"{X.shape} of {X.dtype}")
    if labels.shape != (X.shape[0],) or labels.dtype.kind not in "iuf":
        raise ValueError(f"{path}: y must be {X.shape[0]} numeric labels, got shape "
                         f"{labels.shape} of {labels.dtype}")
    return _checked_points(path, X.astype(np.float64), labels.astype(np.float64),
                           first_row=0, unit="row")


def _checked_points(path: Path, X: np.ndarray, labels: np.ndarray, *,
                    first_row: int | np.ndarray, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """X and the labels as int64; non-finite coordinates and non-integer labels refused.

    Rows are numbered from ``first_row`` in the messages (or, given an array, by its
    entries: each row's line in the file), as ``unit`` ("line": the file's line, "row":
    the array's index).
    """
    def number(index: int) -> int:
        return int(first_row[index]) if isinstance(first_row, np.ndarray) else (
            index + first_row)

    bad = np.flatnonzero(~np.isfinite(X).all(axis=1))
    if bad.size:
        row = number(int(bad[0]))
        raise ValueError(f"{path}: {unit} {row} holds a non-finite coordinate ({bad.size} "
                         f"such {unit}s)")
    bad = np.flatnonzero(~np.isfinite(labels) | (labels != np.round(labels)))
    if bad.size:
        row, label = number(int(bad[0])), float(labels[bad[0]])
        raise ValueError(f"{path}: {unit} {row} has label {label!r}; labels must be integers "
                         f"({bad.size} such {unit}s)")
    return X, labels.astype(np.int64)


def _read_genes(path: Path, X: np.ndarray, y: np.ndarray, data_file: Path) -> list[Cluster]:
    """The genes of a ``genes.json``, checked against the data (errors name the file).

    ``y`` holds the labels of the clustered points (noise left out) of ``data_file``.
    """
    genes = _read_json_object(path)
    sizes, clusters = genes.get("sizes", []), genes.get("clusters", [])
    if not isinstance(sizes, list) or not all(isinstance(n, int) and not isinstance(n, bool)
                                              and n >= 0 for n in sizes):
        raise ValueError(f"{path}: sizes must be a list of non-negative integers")
    if not isinstance(clusters, list) or not all(isinstance(c, dict) for c in clusters):
        raise ValueError(f"{path}: clusters must be a list of objects (mean, variances, "
                         "rotation)")
    if sum(sizes) != len(y):
        short = data_file if len(y) < sum(sizes) else path
        raise ValueError(f"{data_file} holds {len(y)} points in clusters, but the sizes in "
                         f"{path} sum to {sum(sizes)}: {short} is truncated, or the two "
                         "files are not of one dataset")
    if not clusters:
        return []
    counts = np.bincount(y, minlength=len(sizes)) if y.min() >= 0 else None
    if len(clusters) != len(sizes) or counts is None or counts.tolist() != sizes:
        raise ValueError(f"{path}: {len(clusters)} clusters with sizes {sizes} do not match "
                         "the data file's labels")
    out = []
    for k, data in enumerate(clusters):
        try:
            gene = Cluster.from_dict(data)
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path}: cluster {k}: {error}") from None
        out.append(gene)
    _check_genes(out, X.shape[1], f"{path}: ")
    return out


def _check_genes(genes: list[Any], n_dims: int, where: str) -> None:
    """Check genes as `Dataset.load` does (errors start with ``where``).

    Each must be a Cluster of the data's dimension with a proper rotation.
    """
    for k, gene in enumerate(genes):
        if not isinstance(gene, Cluster):
            raise TypeError(f"{where}cluster {k} must be a hawks_deap.genome.Cluster gene, got "
                            f"{type(gene).__name__}")
        if gene.n_dims != n_dims:
            raise ValueError(f"{where}cluster {k} has {gene.n_dims} dimensions, the data "
                             f"{n_dims}")
        r = gene.rotation
        if not (np.allclose(r @ r.T, np.eye(r.shape[0]), atol=1e-8)
                and np.linalg.det(r) > 0):
            raise ValueError(f"{where}cluster {k}: the rotation is not a proper rotation "
                             "(orthogonal, determinant +1)")
