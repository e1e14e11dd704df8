"""Collections of datasets named by paths (the ``features``, ``plot``, ``export`` inputs).

A path is a dataset directory, a clustering-benchmarks battery folder or one of its
``NAME.data.gz``, a folder of dataset directories and batteries, or a suite's output
folder (its ``runs/``). `collection_items` lists the datasets such paths name (nothing
is read but the folders' listings), `load_items` reads and checks them, and
`load_collection` does both: the public loader, each dataset carrying its name.

One naming rule (`collection_names`) names a collection's datasets everywhere: the
command line's rows (``features``, ``plot``, ``export --format isa``),
`load_collection`'s `hawks_deap.Dataset.name` and a suite summary's ``name`` column
(`hawks_deap.campaign.summary.summary_rows`); an exported battery's file names derive
from them (`hawks_deap.io.batteries.battery_file_names`: their last part, all of it
when last parts collide):

- a dataset (run) directory is named by its folder (`base_name`: ``c000-r02`` for a
  suite's run, the name ``summary.csv`` gives it);
- a battery's dataset is ``"battery/dataset"`` (clustering-benchmarks' own naming);
- names that collide within one collection are qualified by their source
  (``"source/name"``), and those that still collide by their path as given.

The source of a dataset (`CollectionItem.group`, the colour of the instance space's
plots) is its battery, the suite whose run it is (the folder holding ``runs/``), or
else its parent folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from hawks_deap.io.dataset import DATA_FILE, DATA_NPZ, Dataset, is_dataset_dir

__all__ = ["RUNS_DIR", "CollectionItem", "base_name", "collection_items",
           "collection_names", "load_collection", "load_items", "source_name"]

#: The folder of a suite's output that holds its runs (``OUT/runs/c000-r00``).
RUNS_DIR = "runs"


class CollectionItem(NamedTuple):
    """One dataset of a collection named by paths.

    Attributes
    ----------
    path : pathlib.Path
        A dataset directory, or a battery folder.
    name : str
        Its name in the collection (`collection_names`): the folder's name, or
        ``"battery/dataset"``; qualified by the source when names collide.
    group : str
        Its source in collection plots (`source_name`): the battery, the suite, or the
        parent folder.
    dataset : str or None
        The battery dataset's name (None: a dataset directory).
    """

    path: Path
    name: str
    group: str
    dataset: str | None = None

    @property
    def short_name(self) -> str:
        """The last part of `name` (``c000-r00``, ``a1``).

        Its file name in an exported battery when no other dataset's short name is the
        same (`hawks_deap.io.batteries.battery_file_names` decides, for the whole
        collection).
        """
        return self.name.rsplit("/", 1)[-1]


def base_name(path: str | os.PathLike, dataset: str | None = None) -> str:
    """A dataset's name before collisions are resolved (`collection_names`).

    Parameters
    ----------
    path : str or os.PathLike
        A dataset (run) directory, or a battery folder.
    dataset : str, optional
        The battery's dataset (None: ``path`` is a dataset directory).

    Returns
    -------
    str
        The directory's name (``c000-r00``: a suite's run as its ``summary.csv`` lists
        it), or ``"battery/dataset"``.
    """
    path = Path(path)
    if dataset is not None:
        return f"{path.resolve().name}/{dataset}"  # (a battery's name, as its reader's)
    return Path(os.path.abspath(path)).name or str(path)  # ("/" has no name)


def source_name(path: str | os.PathLike) -> str:
    """The source of a dataset directory: the suite whose run it is, else its parent folder.

    Parameters
    ----------
    path : str or os.PathLike
        A dataset (run) directory.

    Returns
    -------
    str
        The suite folder's name for a run in a suite's `RUNS_DIR` (``SUITE/runs/RUN``),
        else the parent folder's name (``"."`` for a directory at the root).
    """
    parent = Path(os.path.abspath(path)).parent
    if parent.name == RUNS_DIR and parent.parent.name:  # all of a suite's runs: one source
        return parent.parent.name
    return parent.name or "."


def collection_names(items: Sequence[CollectionItem]) -> list[str]:
    """The names of a collection's datasets: the one naming rule (see the module).

    Each is its `base_name`; names that collide become ``"source/name"`` (a battery's
    name already starts with its source), and those that still collide the path as
    given (the same path given twice keeps one name twice).

    Parameters
    ----------
    items : sequence of CollectionItem
        The collection (their ``path``, ``group`` and ``dataset`` are read).

    Returns
    -------
    list of str
        One name per item, in order.
    """
    names = [base_name(item.path, item.dataset) for item in items]
    qualified = [name if name.startswith(f"{item.group}/") else f"{item.group}/{name}"
                 for item, name in zip(items, names, strict=True)]
    given = [str(item.path) if item.dataset is None else str(item.path / item.dataset)
             for item in items]
    for fallback in (qualified, given):
        repeated = {n for n in names if names.count(n) > 1}
        names = [fallback[i] if n in repeated else n for i, n in enumerate(names)]
    return names


def _named(items: list[CollectionItem]) -> list[CollectionItem]:
    return [item._replace(name=name)
            for item, name in zip(items, collection_names(items), strict=True)]


def _dir_item(path: Path) -> CollectionItem:
    """A dataset directory (named by `collection_names` once the collection is listed)."""
    return CollectionItem(path, base_name(path), source_name(path))


def _battery_items(folder: Path, names: Sequence[str] | None = None
                   ) -> list[CollectionItem]:
    from hawks_deap.io.batteries import battery_dataset_names

    battery = folder.resolve().name
    return [CollectionItem(folder, f"{battery}/{n}", battery, n)
            for n in (battery_dataset_names(folder) if names is None else names)]


def _folder_items(path: Path) -> list[CollectionItem]:
    """The datasets and batteries directly in a folder (hidden entries left out)."""
    from hawks_deap.io.batteries import is_battery_dir

    out: list[CollectionItem] = []
    for child in sorted(p for p in path.iterdir() if not p.name.startswith(".")):
        if is_dataset_dir(child):
            out.append(_dir_item(child))
        elif is_battery_dir(child):
            out.extend(_battery_items(child))
    return out


def _as_paths(paths: object) -> list[Path]:
    """``paths`` as a list of paths: one path alone is one, not its letters."""
    if isinstance(paths, str | os.PathLike):
        return [Path(paths)]
    if not isinstance(paths, Sequence):
        raise TypeError(f"paths must be a path or a sequence of paths, got "
                        f"{type(paths).__name__}")
    for entry in paths:
        if not isinstance(entry, str | os.PathLike):
            raise TypeError(f"paths must hold paths (str or os.PathLike), got {entry!r} "
                            f"({type(entry).__name__})")
    return [Path(entry) for entry in paths]


def collection_items(paths: Sequence[str | os.PathLike] | str | os.PathLike
                     ) -> list[CollectionItem]:
    """The datasets named by paths, in order, named by `collection_names`.

    Parameters
    ----------
    paths : path or sequence of paths
        Each a dataset directory, a battery or one of its ``NAME.data.gz``, a folder of
        dataset directories and batteries, or a suite's output folder (its ``runs/``).

    Returns
    -------
    list of CollectionItem

    Raises
    ------
    ValueError
        Naming a path that does not exist or holds no dataset (``PATH ...``).
    TypeError
        If ``paths`` is not a path or a sequence of them.
    """
    from hawks_deap.io.batteries import DATA_SUFFIX, is_battery_dir

    out: list[CollectionItem] = []
    for path in _as_paths(paths):
        if is_dataset_dir(path):
            out.append(_dir_item(path))
        elif path.is_file() and path.name.endswith(DATA_SUFFIX):
            out.extend(_battery_items(path.parent, [path.name[: -len(DATA_SUFFIX)]]))
        elif not path.exists():
            raise ValueError(f"PATH {path} does not exist")
        elif is_battery_dir(path):
            out.extend(_battery_items(path))
        else:
            found = _folder_items(path) if path.is_dir() else []
            if not found and (path / RUNS_DIR).is_dir():  # a suite's output folder
                found = _folder_items(path / RUNS_DIR)
            if not found:
                raise ValueError(
                    f"PATH {path} is neither a dataset directory (no {DATA_FILE} or "
                    f"{DATA_NPZ}), a battery (no NAME{DATA_SUFFIX}) nor a folder of them")
            out.extend(found)
    return _named(out)


def load_items(items: Sequence[CollectionItem], labels: int = 0) -> list[Dataset]:
    """Read and check the datasets of a collection, each named by its item.

    Parameters
    ----------
    items : sequence of CollectionItem
        From `collection_items`.
    labels : int
        The reference partition of battery datasets (``NAME.labels{K}.gz``).

    Returns
    -------
    list of Dataset
        Each with `hawks_deap.Dataset.name` set to its item's ``name``.

    Raises
    ------
    ValueError
        ``PATH ... is not a readable dataset: ...``, for the first that is not.
    """
    from hawks_deap.io.batteries import read_battery_dataset

    datasets = []
    for item in items:
        try:
            dataset = (Dataset.load(item.path) if item.dataset is None else
                       read_battery_dataset(item.path, item.dataset, labels=labels))
        except (ValueError, KeyError, json.JSONDecodeError) as error:
            where = item.path if item.dataset is None else item.name
            raise ValueError(f"PATH {where} is not a readable dataset: {error}") from None
        dataset.name = item.name  # (tables name their rows by it)
        dataset.source = item.group  # (figures colour or mark instances by it)
        datasets.append(dataset)
    return datasets


def load_collection(paths: Sequence[str | os.PathLike] | str | os.PathLike,
                    labels: int = 0) -> list[Dataset]:
    """Read the datasets that paths name, as ``hawks-deap features`` / ``plot`` do.

    Each dataset's `hawks_deap.Dataset.name` is its name in the collection
    (`collection_names`) and its `hawks_deap.Dataset.source` where it comes from (a
    suite's name, a battery's), so `hawks_deap.analysis.features.features_table` and
    ``performance_table`` name their rows without ``names=``.

    Parameters
    ----------
    paths : path or sequence of paths
        Dataset (run) directories, suites' output folders, batteries or one battery's
        ``NAME.data.gz``, or folders of them (`collection_items`).
    labels : int
        The reference partition of battery datasets (``NAME.labels{labels}.gz``,
        default 0); dataset directories have one partition.

    Returns
    -------
    list of Dataset
        In the order of ``paths``; within a folder, in the order of the names.

    Raises
    ------
    ValueError
        Naming a path that does not exist, holds no dataset or is not a readable one,
        or a battery without label vector ``labels``.
    TypeError
        If ``paths`` is not a path or a sequence of them, or ``labels`` not an integer.

    Examples
    --------
    >>> import tempfile, hawks_deap as hd
    >>> from hawks_deap.io import load_collection
    >>> root = tempfile.mkdtemp()
    >>> _ = hd.make_hawks(n_samples=30, n_clusters=2, generations=1, random_state=0,
    ...                   return_model=True)[2].save(f"{root}/coll/first")
    >>> [d.name for d in load_collection(f"{root}/coll")]
    ['first']
    """
    from hawks_deap._util.validation import check_int

    labels = check_int("labels", labels, minimum=0)
    return load_items(collection_items(paths), labels)
