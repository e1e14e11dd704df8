"""The clustering-benchmarks format (Gagolewski's benchmark suite), read and written.

A *battery* is a folder of datasets (e.g. ``clustering-data-v1/sipu``); each dataset
NAME is three or more files:

- ``NAME.data.gz``: the points, whitespace-separated numbers, one point a row;
- ``NAME.labels0.gz``, ``NAME.labels1.gz``, ...: reference partitions, one integer a
  row; clusters are ``1..K`` and ``0`` marks noise points (which belong to no cluster);
- ``NAME.txt``: a description (origin, literature to cite).

A battery may also hold a ``README.txt`` (that is how ``clustbench.get_battery_names``
finds batteries). The reference reader is the ``clustering-benchmarks`` package
(``clustbench.load_dataset(battery, name, path=ROOT)`` reads ``ROOT/battery/NAME.*``);
this module needs only numpy, and is tested against that package.

How we read (`read_battery`, `read_battery_dataset`):

- The points are read as stored, like ``load_dataset(..., preprocess=False)``.
  clustbench's default preprocessing (drop constant columns, centre, scale, add a
  tiny random jitter) is not applied: the problem features are invariant to centring
  and global scaling, and a jitter would make them random. Constant columns are kept
  (``dimensionality`` is the stored D) and duplicate points are kept.
- One label vector is chosen (``labels=0``: ``labels0``, the default, as the
  benchmark's own documentation ranks it first). Cluster labels ``1..K`` become our
  ``0..K-1`` (in sorted order, so consecutive labels just lose 1); noise (``0``)
  becomes `NOISE_LABEL` (``-1``) and the dataset's metadata gets
  ``"noise_label": -1``.
- Noise points are **kept**, because the benchmark's methodology (clustbench's
  ``get_score``) clusters all points with K = the number of true clusters and scores
  the partition on the non-noise points only. `hawks_deap.analysis.features.performance_table`
  does the same for datasets marked by ``noise_label`` (ARI, as the HAWKS paper
  compares algorithms, with the true K), and `hawks_deap.analysis.features.features_table`
  measures the problem features of the clusters, i.e. of the non-noise points (noise
  is no cluster: it has no silhouette, eccentricity or size share).
- Names are kept: a dataset's ``metadata["name"]`` is ``"battery/NAME"`` (e.g.
  ``"sipu/a1"``), used as its row name in tables; ``metadata["clustbench"]`` holds the
  battery, the dataset, the label vector used, their number, the noise count, the
  folder and the description text.

How we write (`write_battery`): ``ROOT/battery/NAME.data.gz`` (coordinates as Python's
shortest round-trip repr, so clustbench reads back the same float64 values bit for bit;
clustbench's own ``save_data`` writes ``%g``, 6 digits), ``NAME.labels0.gz`` (our
labels 0..K-1 plus 1, noise as 0) and ``NAME.txt`` (the generator and version, the
mode, seed and settings, and the dataset's whole ``metadata.json``), plus a battery
``README.txt`` when there is none. Files are compressed reproducibly (no timestamp)
and written atomically, and no file hawks-deap did not write is ever replaced.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import warnings
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hawks_deap._util.labels import encode_labels
from hawks_deap._util.validation import (
    check_bool,
    check_int,
    check_names,
    check_parent_dir,
    check_X,
)
from hawks_deap.io.dataset import CreatedFiles, Dataset, package_version

__all__ = [
    "DATA_SUFFIX",
    "NOISE_LABEL",
    "CITATION",
    "BatteryExport",
    "battery_dataset_names",
    "battery_description",
    "battery_file_names",
    "check_battery_output",
    "is_battery_dir",
    "iter_battery",
    "prepare_battery",
    "read_battery",
    "RESULT_FILE",
    "read_battery_dataset",
    "read_battery_labels",
    "write_battery",
    "write_results",
]

#: The ending of a battery's data files (``NAME.data.gz``).
DATA_SUFFIX = ".data.gz"
#: Our label of noise points (the battery format's ``0``).
NOISE_LABEL = -1
#: The name of a results file of clustbench's layout
#: (``method_group/battery/dataset.resultK.gz``), given the dataset and K.
RESULT_FILE = "{dataset}.result{k}.gz"
#: The start of every ``NAME.txt`` hawks-deap writes: the mark `write_battery` looks
#: for before it replaces a dataset's files.
_MARK = "Written by hawks-deap "
#: The name in the gzip header of every results file hawks-deap writes (`write_results`;
#: readers ignore it): ``overwrite`` replaces only results files that carry it.
RESULTS_MARK = "hawks-deap-results"
README = "README.txt"
#: The HAWKS paper, as the exported battery's ``README.txt`` cites it (the same
#: reference as the project's ``CITATION.cff`` and ``README.md``, which a test checks).
CITATION = ("C. Shand, R. Allmendinger, J. Handl, A. Webb and J. Keane, \"HAWKS: Evolving "
            "Challenging Benchmark Sets for Cluster Analysis\", IEEE Transactions on "
            "Evolutionary Computation, 2021")
_NAME = re.compile(r"[^\s/\\.][^\s/\\]*")


def _natural_key(name: str) -> list[Any]:
    """Sort key of natural order (``a2`` before ``a10``), as clustbench's natsort."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def battery_dataset_names(path: str | os.PathLike) -> list[str]:
    """Names of the datasets of a battery folder, in natural order.

    Like ``clustbench.get_dataset_names``: every ``NAME.data.gz`` whose name does not
    start with a dot (hidden files, and our own temporary files, are left out).

    Parameters
    ----------
    path : str or os.PathLike
        The battery folder.

    Returns
    -------
    list of str
        The names (``NAME``); empty when ``path`` is not a folder.
    """
    path = Path(path)
    if not path.is_dir():
        return []
    names = [p.name[: -len(DATA_SUFFIX)] for p in path.iterdir()
             if p.name.endswith(DATA_SUFFIX) and not p.name.startswith(".") and p.is_file()]
    return sorted((n for n in names if n), key=_natural_key)


def is_battery_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a folder holding at least one ``NAME.data.gz`` dataset.

    Parameters
    ----------
    path : str or os.PathLike
        The folder (`battery_dataset_names` lists its datasets).

    Returns
    -------
    bool
    """
    return bool(battery_dataset_names(path))


def _label_vectors(folder: Path, name: str) -> int:
    """The number of label vectors ``labels0, labels1, ...`` (counted as clustbench)."""
    count = 0
    while (folder / f"{name}.labels{count}.gz").is_file():
        count += 1
    return count


def _load_numbers(path: Path, what: str) -> np.ndarray:
    """The numbers of a (gzipped) text file as a float64 array with 2 dimensions."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
            values = np.loadtxt(path, dtype=np.float64, ndmin=2)
    except (OSError, EOFError, ValueError, UnicodeDecodeError, zlib.error) as error:
        raise ValueError(f"{path}: not readable as {what} ({error})") from None
    if values.shape[0] == 0 or values.shape[1] == 0:
        raise ValueError(f"{path}: holds no {what}")
    return values


def _read_labels(path: Path, n_samples: int | None) -> np.ndarray:
    """A label vector (clusters 1..K, noise 0) as our labels (0..K-1, noise -1)."""
    raw = _load_numbers(path, "labels")
    if raw.shape[1] != 1 or raw.shape[0] != (raw.shape[0] if n_samples is None else n_samples):
        points = "the points" if n_samples is None else f"the {n_samples} points"
        raise ValueError(f"{path}: must hold one label a row for {points}, "
                         f"got shape {raw.shape}")
    raw = raw[:, 0]
    bad = np.flatnonzero(~np.isfinite(raw) | (raw != np.round(raw)) | (raw < 0))
    if bad.size:
        raise ValueError(f"{path}: row {int(bad[0]) + 1} has label {float(raw[bad[0]])!r}; "
                         f"labels must be integers >= 0 (0: noise) ({bad.size} such rows)")
    raw = raw.astype(np.int64)
    clusters = np.unique(raw[raw > 0])
    if clusters.size == 0:
        raise ValueError(f"{path}: every point is noise (label 0); a reference partition "
                         "needs at least one cluster")
    # clusters in sorted order: consecutive labels 1..K become 0..K-1
    return np.where(raw > 0, np.searchsorted(clusters, raw), NOISE_LABEL)


def read_battery_dataset(path: str | os.PathLike, name: str, *, labels: int = 0) -> Dataset:
    """Read one dataset of a battery folder (``path/name.data.gz`` and its labels).

    Parameters
    ----------
    path : path
        The battery folder (e.g. ``clustering-data-v1/sipu``); its name is the battery's.
    name : str
        The dataset (e.g. ``"a1"``).
    labels : int
        Which reference partition: ``name.labels{labels}.gz`` (default 0).

    Returns
    -------
    Dataset
        X as stored (float64), y in ``0..K-1`` with noise as `NOISE_LABEL`, no genes,
        and metadata ``name`` (``"battery/name"``), ``noise_label`` and ``clustbench``
        (see the module documentation).

    Raises
    ------
    ValueError
        Naming the file: a missing data file or label vector (the message gives the
        vectors there are), non-numeric or ragged rows, non-finite coordinates, labels
        that are not integers >= 0 or not one per point, or no cluster at all.
    """
    labels = check_int("labels", labels, minimum=0)
    folder = Path(path)
    battery = folder.resolve().name
    data_file = folder / f"{name}{DATA_SUFFIX}"
    if not data_file.is_file():
        raise ValueError(f"{data_file}: no such dataset in battery {battery}")
    count = _label_vectors(folder, name)
    labels_file = folder / f"{name}.labels{labels}.gz"
    if labels >= count:
        have = ", ".join(f"labels{i}" for i in range(count)) or "none"
        raise ValueError(f"{labels_file}: no label vector {labels} for dataset "
                         f"{battery}/{name} (it has: {have})")
    X = _load_numbers(data_file, "points")
    bad = np.flatnonzero(~np.isfinite(X).all(axis=1))
    if bad.size:
        raise ValueError(f"{data_file}: row {int(bad[0]) + 1} holds a non-finite "
                         f"coordinate ({bad.size} such rows)")
    y = _read_labels(labels_file, X.shape[0])
    text_file = folder / f"{name}.txt"
    description = (text_file.read_text(encoding="utf-8", errors="replace")
                   if text_file.is_file() else "")
    metadata = {
        "name": f"{battery}/{name}",
        "noise_label": NOISE_LABEL,
        "clustbench": {"battery": battery, "dataset": name, "labels": labels,
                       "n_label_vectors": count, "n_noise": int((y == NOISE_LABEL).sum()),
                       "path": str(folder.resolve()), "description": description},
    }
    return Dataset(X, y, None, metadata)


def read_battery_labels(path: str | os.PathLike, name: str, *,
                        n_samples: int | None = None) -> list[np.ndarray]:
    """Every reference partition of a battery dataset: ``labels0``, ``labels1``, ...

    ``clustbench.get_score`` scores a partition against each of them and keeps the
    maximum; `hawks_deap.analysis.features.performance_table` does the same with
    ``references="all"``, reading them with this function.

    Parameters
    ----------
    path : str or os.PathLike
        The battery folder.
    name : str
        The dataset.
    n_samples : int, optional
        The number of points each vector must label (default: that of ``labels0``).

    Returns
    -------
    list of numpy.ndarray
        One label vector per file, in order, as `read_battery_dataset` reads one:
        clusters ``0..K-1`` (each vector its own K), noise `NOISE_LABEL`.

    Raises
    ------
    ValueError
        Naming the file: no label vector at all, vectors of different lengths (or not
        of ``n_samples``), labels that are not integers >= 0, or no cluster.
    """
    if n_samples is not None:
        n_samples = check_int("n_samples", n_samples, minimum=1)
    folder = Path(path)
    count = _label_vectors(folder, name)
    if count == 0:
        raise ValueError(f"{folder / f'{name}.labels0.gz'}: dataset {folder.resolve().name}/"
                         f"{name} has no label vector")
    out = []
    for i in range(count):
        labels = _read_labels(folder / f"{name}.labels{i}.gz", n_samples)
        n_samples = labels.shape[0]  # every later vector labels as many points
        out.append(labels)
    return out


def iter_battery(path: str | os.PathLike, *, labels: int = 0,
                 names: Sequence[str] | None = None) -> Iterator[Dataset]:
    """The datasets of a battery one at a time (see `read_battery`).

    Parameters
    ----------
    path : str or os.PathLike
        The battery folder; ``ValueError`` when it is not a folder, or holds no
        dataset and ``names`` is None (raised at the first ``next``, as this is a
        generator; `read_battery` checks at once).
    labels : int
        Which reference partition of each dataset (``labels0`` by default).
    names : sequence of str, optional
        Only these datasets, in this order (default: all, `battery_dataset_names`).

    Yields
    ------
    Dataset
        One per dataset, as `read_battery_dataset` gives it.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder (a battery is a folder of "
                         f"NAME{DATA_SUFFIX} files)")
    available = battery_dataset_names(folder)
    if names is None:
        names = available
        if not names:
            raise ValueError(f"{folder} is not a battery: it holds no NAME{DATA_SUFFIX} file")
    names = check_names("names", names)
    for name in names:
        yield read_battery_dataset(folder, name, labels=labels)


def read_battery(path: str | os.PathLike, *, labels: int = 0,
                 names: Sequence[str] | None = None) -> list[Dataset]:
    """Read the datasets of a battery folder, in natural order of their names.

    Parameters
    ----------
    path : path
        The battery folder (e.g. ``clustering-data-v1/sipu``).
    labels : int
        Which reference partition of each dataset (``labels0`` by default); every
        dataset read must have it.
    names : sequence of str, optional
        Read only these datasets (default: all, `battery_dataset_names`).

    Returns
    -------
    list of Dataset
        One per dataset, as `read_battery_dataset` gives it (``metadata["name"]`` is
        ``"battery/NAME"``). Files are parsed by numpy's C reader, one dataset at a
        time (`iter_battery` yields them one by one, to keep one in memory at a time).

    Examples
    --------
    >>> import numpy as np, tempfile
    >>> root = tempfile.mkdtemp()
    >>> ds = Dataset(np.array([[0.0, 0.5], [1.0, 2.0], [3.0, 1e-3]]), [0, 1, 1])
    >>> folder = write_battery([ds], root, battery="toy", names=["tiny"])
    >>> back = read_battery(folder)
    >>> back[0].metadata["name"], back[0].y.tolist(), bool((back[0].X == ds.X).all())
    ('toy/tiny', [0, 1, 1], True)
    """
    return list(iter_battery(path, labels=labels, names=names))


# --------------------------------------------------------------------------- writing


def _check_name(kind: str, name: object) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"{kind} must be a file name without spaces or slashes that does "
                         f"not start with a dot, got {name!r}")
    return name


def battery_file_names(names: Sequence[str]) -> list[str]:
    """Datasets' names as the names of their files in one battery.

    Each is the last part of its name (``sipu/a1`` is ``a1``; ``c000-r00`` stays), so a
    battery's dataset written back keeps its name; names whose last parts collide keep
    all their parts, joined by ``"-"`` (``s1/c000-r00`` is ``s1-c000-r00``). The names
    are those of a collection (`hawks_deap.io.collection.collection_names`,
    `hawks_deap.Dataset.name`): what ``hawks-deap export`` and `write_battery` write.

    Parameters
    ----------
    names : sequence of str
        One name per dataset.

    Returns
    -------
    list of str
        One file name per dataset, in order.
    """
    names = check_names("names", names)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"names must hold str, got {name!r} ({type(name).__name__})")
    last = [name.rsplit("/", 1)[-1] for name in names]
    return [n if last.count(n) == 1 else full.replace("/", "-")
            for n, full in zip(last, names, strict=True)]


def _dataset_files(folder: Path, name: str, entries: set[str]) -> list[str]:
    """The files of dataset ``name`` present in ``folder`` (of its ``entries``)."""
    pattern = re.compile(re.escape(name) + r"\.(data\.gz|txt|labels\d+\.gz)")
    return sorted(e for e in entries if pattern.fullmatch(e))


def _written_by_us(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return fh.readline().startswith(_MARK)
    except OSError:
        return False


def check_battery_output(out: str | os.PathLike, battery: str, names: Sequence[str], *,
                         overwrite: bool = False) -> Path:
    """Check that `write_battery` may write these datasets; return the battery folder.

    Parameters
    ----------
    out : str or os.PathLike
        The root of the benchmark suite.
    battery : str
        The battery's name (its folder, ``out/battery``).
    names : sequence of str
        The names of the datasets to write.
    overwrite : bool
        Whether datasets of the same names that hawks-deap wrote may be replaced.

    Returns
    -------
    Path
        The battery folder (which may not exist yet).

    Raises
    ------
    FileExistsError
        If a file of one of the datasets exists and ``overwrite`` is false.
    ValueError
        If ``battery`` or a name is not a plain file name, names repeat, ``out`` or the
        battery folder is not a directory, the battery folder is a symbolic link, or an
        existing dataset's files were not written by hawks-deap (its ``NAME.txt`` lacks
        our first line), include label vectors ``labels1..`` (never written by
        hawks-deap) or symbolic links: those are never replaced.
    """
    overwrite = check_bool("overwrite", overwrite)
    battery = _check_name("battery", battery)
    names = [_check_name("names entry", n) for n in check_names("names", names)]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"dataset names must be distinct; repeated: {', '.join(repeated)}")
    folder = Path(out) / battery
    if folder.is_symlink():  # (as a run's --out: written into, never through a link)
        raise ValueError(f"{folder} is a symbolic link; hawks-deap writes a battery into a "
                         "real folder only: give out the folder the link points to")
    for path in (Path(out), folder):
        if path.exists() and not path.is_dir():
            raise ValueError(f"{path} exists and is not a directory")
    check_parent_dir(folder, f"out {out}")
    if not folder.is_dir():
        return folder
    entries = {p.name for p in folder.iterdir()}
    for name in names:
        present = _dataset_files(folder, name, entries)
        if not present:
            continue
        if not overwrite:
            raise FileExistsError(f"{folder}: dataset {name} exists ({', '.join(present)}); "
                                  "pass overwrite=True (--overwrite) to replace it")
        links = [e for e in present if (folder / e).is_symlink()]
        if links:
            raise ValueError(f"{folder}: dataset {name} has symbolic links "
                             f"({', '.join(links)}); an overwrite never replaces a link")
        if not _written_by_us(folder / f"{name}.txt"):
            raise ValueError(f"{folder}: dataset {name} was not written by hawks-deap (its "
                             f"{name}.txt does not say so); an overwrite only replaces "
                             "datasets hawks-deap wrote")
        others = [e for e in present if re.fullmatch(r".*\.labels[1-9]\d*\.gz", e)]
        if others:
            raise ValueError(f"{folder}: dataset {name} also has {', '.join(others)}, which "
                             "hawks-deap did not write; an overwrite would leave them stale")
    return folder


def _battery_labels(dataset: Any) -> np.ndarray:
    """Labels of the format: our labels' codes plus 1 (0..K-1 become 1..K), noise 0."""
    y = np.asarray(dataset.y)
    noise = dataset.noise_mask
    if noise.all():
        raise ValueError("a dataset's points are all noise; the format needs a cluster")
    codes, _ = encode_labels(y[~noise], name="y")
    out = np.zeros(y.shape[0], dtype=np.int64)
    out[~noise] = codes + 1
    return out


def battery_description(dataset: Any, name: str, battery: str) -> str:
    """The ``NAME.txt`` of an exported dataset: how it was made, then its metadata.

    Parameters
    ----------
    dataset : Dataset
        The dataset (``TypeError`` for anything else; ``ValueError`` when all its
        points are noise).
    name, battery : str
        The dataset's and the battery's names (plain file names: no spaces or slashes,
        not starting with a dot; ``ValueError`` otherwise).

    Returns
    -------
    str
        The text, starting with the line `write_battery` looks for before it replaces
        a dataset.
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a hawks_deap.Dataset, got {type(dataset).__name__}")
    name, battery = _check_name("name", name), _check_name("battery", battery)
    return _description(dataset, name, battery, _battery_labels(dataset))


def _description(dataset: Any, name: str, battery: str, labels: np.ndarray) -> str:
    """`battery_description`, given the dataset's labels in the format (`_battery_labels`)."""
    meta = dict(getattr(dataset, "metadata", None) or {})
    problem = meta.get("problem") or {}
    settings = (meta.get("command") or {}).get("settings") or {}
    n, d = dataset.X.shape
    k = int(labels.max())
    lines = [f"{_MARK}{package_version()}: dataset {name} of battery {battery}.", ""]
    if problem or settings:
        lines.append(f"Evolved by HAWKS (Shand et al., IEEE TEVC 2021) in hawks-deap "
                     f"{meta.get('version', '?')}, mode {problem.get('mode', '?')}, seed "
                     f"{meta.get('seed', settings.get('seed', '?'))}.")
        if "suite" in meta:
            lines.append(f"Run of a suite: {json.dumps(meta['suite'], sort_keys=True)}.")
    else:
        lines.append("No generating settings were recorded with this dataset.")
    source = meta.get("clustbench") or {}
    if int(source.get("n_label_vectors", 1)) > 1:
        lines.append(f"Copied from dataset {source.get('dataset')} of battery "
                     f"{source.get('battery')}: `labels0` here is its "
                     f"`labels{source.get('labels')}`, one of its "
                     f"{source['n_label_vectors']} reference labellings; the others are not "
                     "copied, so clustbench scores this copy against `labels0` alone.")
    lines += [f"N = {n} points, D = {d} dimensions, K = {k} clusters.",
              f"`labels0`: the {'generating clusters' if problem or settings else 'labels'} "
              "1..K (hawks-deap's labels 0..K-1, plus 1); "
              + (f"0 marks the {int((labels == 0).sum())} noise points."
                 if (labels == 0).any() else "there is no noise."), "",
              "The dataset's metadata (settings, seed, fitness, constraint values):", ""]
    body = json.dumps(meta, indent=2, sort_keys=True, default=str)
    return "\n".join(lines) + "\n" + body + "\n"


def _gzip(chunks: Iterable[str], name: str = "") -> bytes:
    """Gzip text given in pieces (no timestamp in the header: the same bytes each time).

    ``name``: the file name the header holds (none if empty).
    """
    buffer = io.BytesIO()
    with gzip.GzipFile(filename=name, fileobj=buffer, mode="wb", mtime=0) as fh:
        for chunk in chunks:
            fh.write(chunk.encode("utf-8"))
    return buffer.getvalue()


def _data_lines(X: np.ndarray, rows: int = 8192) -> Iterator[str]:
    """The rows of ``NAME.data.gz``, a block at a time (the text is never whole)."""
    # repr is the shortest text that reads back as the same float64 (numpy's parser
    # rounds correctly), hence exact and smaller than %.17g
    for start in range(0, X.shape[0], rows):
        yield "".join(" ".join(map(repr, row)) + "\n"
                      for row in X[start:start + rows].tolist())


@dataclass(frozen=True)
class BatteryExport:
    """Datasets checked for writing as a battery (`prepare_battery`); `write` writes them.

    Attributes
    ----------
    folder : Path
        The battery folder, ``out/battery``.
    battery : str
        The battery's name.
    names : tuple of str
        One dataset name per dataset.
    datasets : tuple of Dataset
        The datasets.
    labels : tuple of numpy.ndarray
        Each dataset's labels in the format (clusters ``1..K``, noise ``0``).
    """

    folder: Path
    battery: str
    names: tuple[str, ...]
    datasets: tuple[Dataset, ...]
    labels: tuple[np.ndarray, ...]

    def write(self) -> Path:
        """Write the battery (see `write_battery`); return its folder."""
        self.folder.mkdir(parents=True, exist_ok=True)
        files = CreatedFiles()
        with files.removed_on(BaseException):
            if not os.path.lexists(self.folder / README):  # (a link, even dangling: kept)
                files.write(self.folder / README, _readme(self.battery).encode("utf-8"))
            for name, dataset, labels in zip(self.names, self.datasets, self.labels,
                                             strict=True):
                text = _description(dataset, name, self.battery, labels)
                files.write(self.folder / f"{name}.txt", text.encode("utf-8"))
                files.write(self.folder / f"{name}.labels0.gz",
                            _gzip(["".join(f"{v}\n" for v in labels.tolist())]))
                files.write(self.folder / f"{name}{DATA_SUFFIX}", _gzip(_data_lines(dataset.X)))
        return self.folder


def prepare_battery(datasets: Iterable[Any], out: str | os.PathLike, *, battery: str,
                    names: Sequence[str] | None = None,
                    overwrite: bool = False) -> BatteryExport:
    """Check everything `write_battery` checks, and write nothing; ``.write()`` writes.

    A command checks its whole input before any work this way, then writes. Parameters
    and errors are `write_battery`'s.

    Parameters
    ----------
    datasets : iterable of Dataset
        Labelled datasets (at least one).
    out : str or os.PathLike
        The root of the benchmark suite.
    battery : str
        The battery's name (its folder).
    names : sequence of str, optional
        One dataset name per dataset (default as in `write_battery`).
    overwrite : bool
        Replace datasets of the same names that hawks-deap wrote.

    Returns
    -------
    BatteryExport
        The checked export; its ``write()`` writes it.
    """
    datasets = list(datasets)
    if not datasets:
        raise ValueError("datasets must hold at least one dataset, got none")
    names = (battery_file_names([str((getattr(d, "metadata", None) or {}).get("name")
                                     or f"d{i}") for i, d in enumerate(datasets)])
             if names is None
             else check_names("names", names))
    if len(names) != len(datasets):
        raise ValueError(f"names must have one entry per dataset ({len(datasets)}), got "
                         f"{len(names)}")
    labels = []
    for name, dataset in zip(names, datasets, strict=True):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"datasets must be hawks_deap.Dataset objects, got "
                            f"{type(dataset).__name__} for {name!r}")
        try:
            check_X(dataset.X)
            labels.append(_battery_labels(dataset))
        except ValueError as error:
            raise ValueError(f"dataset {name!r}: {error}") from None
    folder = check_battery_output(out, battery, names, overwrite=overwrite)
    return BatteryExport(folder, battery, tuple(names), tuple(datasets), tuple(labels))


def write_battery(datasets: Iterable[Any], out: str | os.PathLike, *, battery: str,
                  names: Sequence[str] | None = None, overwrite: bool = False) -> Path:
    """Write datasets as a battery ``out/battery/`` of the clustering-benchmarks format.

    Parameters
    ----------
    datasets : iterable of Dataset
        Labelled datasets (points with noise, marked by ``metadata["noise_label"]``,
        get label 0).
    out : path
        The root of the benchmark suite: ``clustbench.load_dataset(battery, name,
        path=out)`` reads the result.
    battery : str
        The battery's name (its folder).
    names : sequence of str, optional
        Dataset names (file names without spaces or slashes, not starting with a dot);
        default: each dataset's name (`hawks_deap.Dataset.name`, else ``d0, d1,
        ...``) as a file name (`battery_file_names`: ``sipu/a1`` is ``a1``).
    overwrite : bool
        Replace the files of datasets of the same names that hawks-deap wrote
        (`check_battery_output` says which files are never replaced).

    Returns
    -------
    Path
        The battery folder.

    Notes
    -----
    Everything is checked before the first file is written (`prepare_battery`). Per
    dataset, ``NAME.txt`` (`battery_description`), ``NAME.labels0.gz`` then
    ``NAME.data.gz`` are each written atomically, the data last, so a dataset is listed
    (by its data file) only once it is whole; an interrupted or failed call removes the
    files it created. A battery ``README.txt`` is written if there is none; an existing
    one is kept.
    """
    return prepare_battery(datasets, out, battery=battery, names=names,
                           overwrite=overwrite).write()


def _readme(battery: str) -> str:
    return (f"Battery {battery}, written by hawks-deap {package_version()}.\nEach NAME.txt "
            "says where its dataset comes from: one evolved by HAWKS records its mode, "
            f"settings and seed (please cite: {CITATION}); another, that no generating "
            "settings were recorded with it.\n")


# --------------------------------------------------------------------------- results


def _result_partitions(partitions: Any) -> dict[int, dict[str, np.ndarray]]:
    """The partitions as ``{K: {method: labels 1..K}}``, one file's columns per K."""
    if not isinstance(partitions, Mapping) or not partitions:
        raise ValueError(f"partitions must be a non-empty mapping of method names to label "
                         f"vectors (or to {{K: labels}}), got {partitions!r:.80}")
    files: dict[int, dict[str, np.ndarray]] = {}
    n_samples = None
    for method, value in partitions.items():
        if not isinstance(method, str) or not method or any(c in method for c in "\r\n"):
            raise ValueError(f"partitions keys must be method names (non-empty, one line), "
                             f"got {method!r}")
        vectors = list(value.values()) if isinstance(value, Mapping) else [value]
        for labels in vectors:
            codes, k = encode_labels(labels, n_samples=n_samples,
                                     name=f"partitions[{method!r}]")
            if k == 0:
                raise ValueError(f"partitions[{method!r}] must label at least one point")
            n_samples = codes.shape[0]
            if method in files.setdefault(k, {}):
                raise ValueError(f"partitions[{method!r}] holds two partitions into {k} "
                                 "clusters; a results file has one column per method")
            files[k][method] = codes + 1
    return files


def _results_csv(columns: Mapping[str, np.ndarray]) -> str:
    """The text of a results file: a header of method names, then one row per point."""
    import csv

    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(list(columns))
    writer.writerows(np.column_stack(list(columns.values())).tolist())
    return text.getvalue()


def write_results(partitions: Mapping[str, Any], out: str | os.PathLike, *,
                  method_group: str, battery: str, dataset: str,
                  overwrite: bool = False) -> list[Path]:
    """Write partitions in clustbench's results layout, which ``clustbench.load_results`` reads.

    The layout is ``out/method_group/battery/dataset.resultK.gz`` (`RESULT_FILE`): one
    gzipped CSV per number of clusters K, whose header names the methods and whose
    columns are their partitions into K clusters, labels ``1..K``, one row per point
    (what ``clustbench.save_results`` writes). ``clustbench.load_results(method_group,
    battery, dataset, K, path=out)`` gives ``{method: {K: labels}}`` back, and
    ``clustbench.get_score(labels, results[method])`` scores a method as the benchmark
    does.

    Parameters
    ----------
    partitions : mapping
        Method name to its partition of the dataset's points (any hashable labels; the
        K of its file is the number of distinct labels, relabelled ``1..K`` in sorted
        order), or to ``{K: partition}`` for several (as ``load_results`` gives them
        and `hawks_deap.analysis.features.clustering_results` makes them). Every
        partition labels the same number of points; a label is a cluster (a results file
        has no noise).
    out : str or os.PathLike
        The root of the results (clustbench's ``path``).
    method_group, battery, dataset : str
        Plain file names (no spaces or slashes, not starting with a dot): the folder of
        the methods, the battery's and the dataset's names.
    overwrite : bool
        Replace existing results files of this dataset that hawks-deap wrote (each is
        replaced whole: the columns of methods not in ``partitions`` are lost); others
        are never replaced.

    Returns
    -------
    list of Path
        The files written, in increasing K.

    Raises
    ------
    FileExistsError
        If a file to write exists and ``overwrite`` is false, or it was not written by
        hawks-deap (nothing is written).
    ValueError
        For a bad name, no partition, partitions of different lengths, or two
        partitions of one method into the same K.
    """
    overwrite = check_bool("overwrite", overwrite)
    method_group = _check_name("method_group", method_group)
    battery = _check_name("battery", battery)
    dataset = _check_name("dataset", dataset)
    files = _result_partitions(partitions)
    folder = check_results_folder(out, method_group, battery)
    paths = {k: folder / RESULT_FILE.format(dataset=dataset, k=k) for k in sorted(files)}
    check_results_present([p for p in paths.values() if os.path.lexists(p)], overwrite,
                          "overwrite=True")
    folder.mkdir(parents=True, exist_ok=True)
    created = CreatedFiles()
    with created.removed_on(BaseException):
        for k, path in paths.items():
            check_results_present([path] if os.path.lexists(path) else [], overwrite,
                                  "overwrite=True")  # again, right before replacing it
            created.write(path, _gzip([_results_csv(files[k])], RESULTS_MARK))
    return list(paths.values())


def check_results_folder(out: str | os.PathLike, method_group: str, battery: str) -> Path:
    """The folder ``out/method_group/battery`` of `write_results`, if it can be written.

    ``ValueError`` if a level of it is a file, or it (or its nearest existing parent)
    cannot be written: checked before any clustering.
    """
    folder = Path(out) / method_group / battery
    for path in (Path(out), Path(out) / method_group, folder):
        if path.exists() and not path.is_dir():
            raise ValueError(f"{path} exists and is not a directory")
    if folder.is_dir():
        if not os.access(folder, os.W_OK):
            raise ValueError(f"out {out}: {folder} is not writable")
    else:
        check_parent_dir(folder, f"out {out}")
    return folder


def check_results_present(present: list[Path], overwrite: bool, flag: str) -> None:
    """Refuse to replace results files hawks-deap did not write, or any without overwrite.

    With ``overwrite``, files without `RESULTS_MARK` in their gzip header (or links)
    are still refused. ``FileExistsError`` naming them; ``flag`` is how the caller asks
    to overwrite.
    """
    if not present:
        return
    folder = present[0].parent
    if not overwrite:
        raise FileExistsError(f"{folder}: {', '.join(p.name for p in present)} exist; pass "
                              f"{flag} to replace them")
    foreign = [p.name for p in present if not _marked_results(p)]
    if foreign:
        raise FileExistsError(f"{folder}: {', '.join(foreign)} were not written by hawks-deap "
                              f"and are kept, {flag} or not; remove them or write to another "
                              "method group")


def _marked_results(path: Path) -> bool:
    """Whether ``path`` is a regular file whose gzip header names `RESULTS_MARK`."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return False
    # magic, deflate, flags (FNAME set, no FEXTRA), mtime, xfl, os; then the name, NUL-ended
    if len(head) < 10 or head[:3] != b"\x1f\x8b\x08" or head[3] & 0x04 or not head[3] & 0x08:
        return False
    return head[10:head.find(b"\0", 10)] == RESULTS_MARK.encode("latin-1")
