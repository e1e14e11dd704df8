"""Collections of datasets named by paths (the ``features``, ``plot``, ``export`` inputs).

A path is a dataset directory, a clustering-benchmarks battery folder or one of its
``NAME.data.gz``, a folder of dataset directories and batteries, or a suite's output
folder (its ``runs/``). `collection_items` lists the datasets such paths name (nothing
is read but the folders' listings) and `load_items` reads and checks them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from hawks_deap.io.dataset import DATA_FILE, DATA_NPZ, is_dataset_dir

__all__ = ["CollectionItem", "collection_items", "load_items"]


class CollectionItem(NamedTuple):
    """One dataset of a collection named by paths.

    Attributes
    ----------
    path : pathlib.Path
        A dataset directory, or a battery folder.
    name : str
        Its row name: the directory as given, or ``"battery/dataset"``.
    group : str
        Its source in collection plots: the parent folder or the battery.
    dataset : str or None
        The battery dataset's name (None: a dataset directory).
    """

    path: Path
    name: str
    group: str
    dataset: str | None = None

    @property
    def short_name(self) -> str:
        """The name of a dataset in an exported battery."""
        return self.dataset if self.dataset is not None else self.path.resolve().name


def _dir_item(path: Path) -> CollectionItem:
    """A dataset directory, named as given, from the source of its parent folder."""
    return CollectionItem(path, str(path), path.resolve().parent.name or ".")


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


def collection_items(paths: Sequence[str | Path]) -> list[CollectionItem]:
    """The datasets named by paths, in order.

    Parameters
    ----------
    paths : sequence of str or pathlib.Path
        Each a dataset directory, a battery or one of its ``NAME.data.gz``, a folder of
        dataset directories and batteries, or a suite's output folder (its ``runs/``).

    Returns
    -------
    list of CollectionItem

    Raises
    ------
    ValueError
        Naming a path that does not exist or holds no dataset (``PATH ...``).
    """
    from hawks_deap.io.batteries import DATA_SUFFIX, is_battery_dir

    out: list[CollectionItem] = []
    for text in paths:
        path = Path(text)
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
            if not found and (path / "runs").is_dir():  # a suite's output folder
                found = _folder_items(path / "runs")
            if not found:
                raise ValueError(
                    f"PATH {path} is neither a dataset directory (no {DATA_FILE} or "
                    f"{DATA_NPZ}), a battery (no NAME{DATA_SUFFIX}) nor a folder of them")
            out.extend(found)
    return out


def load_items(items: Sequence[CollectionItem], labels: int = 0) -> list[Any]:
    """Read and check the datasets of a collection (`hawks_deap.Dataset` each).

    Parameters
    ----------
    items : sequence of CollectionItem
        From `collection_items`.
    labels : int
        The reference partition of battery datasets (``NAME.labels{K}.gz``).

    Returns
    -------
    list of Dataset

    Raises
    ------
    ValueError
        ``PATH ... is not a readable dataset: ...``, for the first that is not.
    """
    from hawks_deap.io.batteries import read_battery_dataset
    from hawks_deap.io.dataset import Dataset

    datasets = []
    for item in items:
        try:
            datasets.append(Dataset.load(item.path) if item.dataset is None else
                            read_battery_dataset(item.path, item.dataset, labels=labels))
        except (ValueError, KeyError, json.JSONDecodeError) as error:
            where = item.path if item.dataset is None else item.name
            raise ValueError(f"PATH {where} is not a readable dataset: {error}") from None
    return datasets
