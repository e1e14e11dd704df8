"""Problem features, the instance space and clustering performance tables.

The HAWKS paper (section IV-A) describes a dataset by 7 *problem features* that relate
to how hard it is to cluster; section V embeds collections of datasets in a 2-D
*instance space* (the features, standardised, projected by PCA) and compares clustering
algorithms by their adjusted Rand index (ARI) on each dataset (Fig. 2 and 3).

The seven features of a labelled dataset (``connectivity``, ``dimensionality``,
``eccentricity``, ``entropy``, ``n_clusters``, ``silhouette``, ``silhouette_std``) and
their formulas are in `hawks_deap.metrics.features` (below the problems, which target
them: `hawks_deap.problems.FeatureTargetProblem`); `problem_features`, `FEATURE_NAMES`,
`connectivity`, `average_eccentricity` and `size_entropy` are re-exported here.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hawks_deap._util.labels import encode_labels
from hawks_deap._util.threads import check_threads, thread_cap
from hawks_deap._util.validation import as_seed_sequence, check_float, check_int, int_seed
from hawks_deap.analysis.table import Table
from hawks_deap.metrics import available as available_indices
from hawks_deap.metrics import get as get_index

# The pure feature functions live below the problems (an Index-mode problem targets
# them); they are re-exported here, where they are documented, under the same names.
from hawks_deap.metrics.features import (
    FEATURE_NAMES,
    average_eccentricity,
    check_labelled_data,
    connectivity,
    problem_features,
    size_entropy,
)

__all__ = [
    "FEATURE_NAMES",
    "InstanceSpace",
    "SPACE_FORMAT",
    "Table",
    "average_eccentricity",
    "best_algorithms",
    "check_feature_inputs",
    "clustering_results",
    "clustering_seed",
    "connectivity",
    "features_table",
    "performance_table",
    "problem_features",
    "size_entropy",
]

# --------------------------------------------------------------------------- tables


def _as_xy(item: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """X, y and the noise mask (None: no noise) of one item of a collection.

    A Dataset whose ``metadata["noise_label"]`` is set (datasets read from a
    clustering-benchmarks battery, `hawks_deap.io.batteries`) marks its points with that
    label as noise: points that belong to no cluster.
    """
    if hasattr(item, "X") and hasattr(item, "y"):
        noise = item.noise_mask if hasattr(item, "noise_mask") else None
        if noise is not None and noise.all():
            raise ValueError("a dataset's points are all noise (metadata noise_label "
                             f"{item.metadata['noise_label']!r}); its features need a cluster")
        return item.X, item.y, noise if noise is not None and noise.any() else None
    if isinstance(item, tuple) and len(item) == 2:
        return item[0], item[1], None
    raise TypeError(f"datasets must be hawks_deap.Dataset objects or (X, y) pairs, got "
                    f"{type(item).__name__}")


def _names(datasets: Sequence[Any], names: Sequence[str] | None) -> list[str]:
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(datasets):
            raise ValueError(f"names must have one entry per dataset ({len(datasets)}), got "
                             f"{len(names)}")
        return names
    out = []
    for i, item in enumerate(datasets):
        meta = getattr(item, "metadata", None) or {}
        out.append(str(meta.get("name", i)))
    return out


def features_table(datasets: Iterable[Any], *, names: Sequence[str] | None = None,
                   n_threads: int | None = 1, **kwargs: Any) -> Table:
    """The problem features of several datasets, one row each.

    Parameters
    ----------
    datasets : iterable of Dataset or (X, y)
        The labelled datasets.
    names : sequence of str, optional
        Row names (default: ``metadata["name"]`` or the position).
    n_threads : int or None
        BLAS threads while measuring (default 1: the silhouettes' distance products are
        small and many, and on a busy machine more threads only wait for each other; the
        features do not depend on it). None leaves the library's own setting.
    **kwargs
        Passed to `problem_features` (``metric``, ``n_neighbors``, ``variance_kept``).

    Returns
    -------
    Table
        Columns `FEATURE_NAMES`.

    Notes
    -----
    The points of a Dataset marked with ``metadata["noise_label"]`` that carry that
    label are noise (a clustering-benchmarks battery's label 0, see
    `hawks_deap.io.batteries`): its features are those of its clusters, measured on the
    other points.
    """
    n_threads = check_threads("n_threads", n_threads)
    datasets = list(datasets)
    index = _names(datasets, names)
    items = check_feature_inputs(datasets, names=index,
                                 n_neighbors=kwargs.get("n_neighbors", 10))
    rows = []
    # BLAS only: the features run no OpenMP loop, and capping OpenMP would import
    # scikit-learn (most of a second) for a command that may not need it
    with thread_cap(n_threads, openmp=False):
        for i, (X, y) in enumerate(items):
            try:  # in a table of many, say which dataset is at fault
                feats = problem_features(X, y, **kwargs)
            except ValueError as error:
                raise ValueError(f"dataset {index[i]!r} (row {i}): {error}") from None
            rows.append([float(feats[c]) for c in FEATURE_NAMES])
    values = np.array(rows, dtype=float).reshape(len(rows), len(FEATURE_NAMES))
    return Table(tuple(index), FEATURE_NAMES, values)


def check_feature_inputs(datasets: Sequence[Any], *, names: Sequence[str] | None = None,
                         n_neighbors: int = 10, min_clusters: int = 1
                         ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Check every dataset of a `features_table` before any work; their (X, y).

    Parameters
    ----------
    datasets : sequence of Dataset or (X, y)
        As `features_table` (noise points, if marked, are left out of what is returned).
    names : sequence of str, optional
        Row names, as `features_table`, naming a dataset at fault.
    n_neighbors : int
        L of the connectivity: a dataset needs at least L + 1 points (11 by default).
    min_clusters : int
        Clusters a dataset needs (noise left out): 2 for an instance space, which needs
        every feature finite (a single cluster has no silhouette); 1 by default (its
        features are then nan).

    Returns
    -------
    list of (X, y)
        Each dataset's points (a float array) and labels, noise left out.

    Raises
    ------
    ValueError, TypeError
        Naming the dataset (``dataset 'NAME' (row i)``): too few points, non-finite or
        too large values (`hawks_deap._util.validation.check_X`), bad labels, all noise.
    """
    index = _names(datasets, names)
    items = []
    for i, item in enumerate(datasets):
        where = f"dataset {index[i]!r} (row {i})"
        try:
            X, y, noise = _as_xy(item)
            if noise is not None:  # noise is no cluster: the features are the clusters'
                X, y = np.asarray(X)[~noise], np.asarray(y)[~noise]
            X, _, _ = check_labelled_data(X, y)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{where}: {error}") from None
        if isinstance(n_neighbors, int) and X.shape[0] <= n_neighbors:
            raise ValueError(f"{where}: n_neighbors must be <= n_samples - 1 = "
                             f"{X.shape[0] - 1}, got {n_neighbors}: the features need at "
                             f"least {n_neighbors + 1} points (each point's {n_neighbors} "
                             "nearest neighbours)")
        k = len(np.unique(np.asarray(y)))
        if k < min_clusters:
            raise ValueError(f"{where}: has {k} cluster(s); at least {min_clusters} are "
                             "needed (a single cluster has no silhouette, and an instance "
                             "space needs every feature finite)")
        items.append((X, np.asarray(y)))
    return items


def _score_function(score: object) -> tuple[Any, bool]:
    """The function of an external index named ``score`` and whether higher is better."""
    if not isinstance(score, str):
        raise TypeError(f"score must be the name of an external index (e.g. 'ari', 'nca'), "
                        f"got {score!r} ({type(score).__name__})")
    try:
        info = get_index(score)
    except (KeyError, ValueError):
        raise ValueError(f"unknown score {score!r}; valid (external indices): "
                         f"{', '.join(available_indices('external'))}") from None
    if info.kind != "external":
        raise ValueError(f"score must name an external index (it compares a partition "
                         f"with the true labels), got {score!r}, an {info.kind} index; "
                         f"valid: {', '.join(available_indices('external'))}")
    return info.function, info.higher_is_better


def _reference(y: Any, noise_label: Any, where: str) -> tuple[np.ndarray, int, Any]:
    """``(codes, k, scored)`` of one reference labelling: noise left out of the codes."""
    y = np.asarray(y)
    if noise_label is None:
        codes, k = encode_labels(y, name="references")
        return codes, k, None
    scored = y != noise_label
    if not scored.any():
        raise ValueError(f"{where}: a reference labelling is all noise (label "
                         f"{noise_label!r}); a partition needs a cluster")
    codes, k = encode_labels(y[scored], name="references")
    return codes, k, (None if scored.all() else scored)


def _labellings(item: Any, references: Any, i: int, n: int, where: str) -> list[Any]:
    """The reference labellings of dataset ``i`` (``references`` of `performance_table`)."""
    if references is None:
        return []
    if isinstance(references, str):
        meta = getattr(item, "metadata", None) or {}
        source = meta.get("clustbench") if isinstance(meta, Mapping) else None
        if not isinstance(source, Mapping) or "path" not in source:
            return []  # not read from a battery: its own labels are its one reference
        from hawks_deap.io.batteries import read_battery_labels

        return read_battery_labels(source["path"], source["dataset"], n_samples=n)
    entry = references[i]
    if isinstance(entry, str | bytes) or not isinstance(entry, Sequence | np.ndarray):
        raise TypeError(f"{where}: references entries must be sequences of label vectors, "
                        f"got {type(entry).__name__}")
    if len(entry) == 0:
        raise ValueError(f"{where}: references entry holds no labelling")
    out = []
    for labels in entry:
        labels = np.asarray(labels)
        if labels.ndim != 1 or labels.shape[0] != n:
            raise ValueError(f"{where}: a reference labelling must be 1-D with one label "
                             f"per point ({n}), got shape {labels.shape}")
        out.append(labels)
    return out


def _check_references(references: Any, n_datasets: int) -> Any:
    if references is None or references == "all":
        return references
    if isinstance(references, str | bytes) or not isinstance(references, Sequence):
        raise ValueError(f"references must be None, 'all' or one sequence of label vectors "
                         f"per dataset, got {references!r}")
    if len(references) != n_datasets:
        raise ValueError(f"references must have one entry per dataset ({n_datasets}), got "
                         f"{len(references)}")
    return references


def _performance_tasks(datasets: Sequence[Any], index: Sequence[str], runners: Sequence[Any],
                       seed: object, references: Any, score: tuple[Any, bool]
                       ) -> list[tuple]:
    """One task per dataset (`_performance_row`), every input checked before any work."""
    ss = as_seed_sequence(seed)
    tasks = []
    for i, item in enumerate(datasets):
        where = f"dataset {index[i]!r} (row {i})"
        X, y, noise = _as_xy(item)
        X, codes, k = check_labelled_data(X, y)
        noise_label = ((getattr(item, "metadata", None) or {}).get("noise_label")
                       if hasattr(item, "noise_mask") else None)
        refs = [_reference(labels, noise_label, where)
                for labels in _labellings(item, references, i, X.shape[0], where)]
        if not refs:  # the dataset's own labels, as before references existed
            scored = None
            if noise is not None:  # as clustbench's get_score: cluster all, score non-noise
                scored = ~noise
                codes, k = encode_labels(np.asarray(y)[scored])
            refs = [(codes, k, scored)]
        for runner in runners:  # checked here, before any clustering runs
            for _, k, _ in refs:
                if k * runner.k_multiplier > X.shape[0]:
                    raise ValueError(f"{where} has {X.shape[0]} points, too few for "
                                     f"{runner.name!r}: it asks for {k} * "
                                     f"{runner.k_multiplier} clusters")
        seeds = [clustering_seed(ss, X, runner.name) for runner in runners]
        tasks.append((X, refs, runners, seeds, score))
    return tasks


def clustering_seed(seed: object, X: Any, algorithm: str) -> int:
    """The seed `performance_table` gives an algorithm on a dataset: its data's and name's.

    ``int_seed(seed, *words)``, where ``words`` are the four 32-bit words of a 16-byte
    BLAKE2b digest of the algorithm's name, the data's shape and its values (float64,
    little-endian). So a score depends on the table's seed, the data and the algorithm
    only: not on the other datasets or algorithms of the table, their order, the
    dataset's name or where it is stored.

    Parameters
    ----------
    seed : int, SeedSequence, Generator or None
        The table's seed (None, or a Generator, draws a new one at each call: pass the
        same SeedSequence to every call of one table).
    X : array-like of shape (N, D)
        The dataset's points.
    algorithm : str
        The algorithm's name (a `hawks_deap.clustering.ClusteringAlgorithm`'s ``name``):
        a registered name, or an import path as written (``my_pkg.algo:Mine`` and
        ``./algo.py:mine`` are other names than ``algo.py:mine``).

    Returns
    -------
    int
        A seed in ``[0, 2**32)``, as scikit-learn's ``random_state`` takes.
    """
    data = np.ascontiguousarray(X, dtype="<f8")
    digest = hashlib.blake2b(digest_size=16)
    digest.update(str(algorithm).encode("utf-8") + b"\0")
    digest.update(np.asarray(data.shape, dtype="<i8").tobytes())
    digest.update(data.tobytes())
    words = np.frombuffer(digest.digest(), dtype="<u4").tolist()
    return int_seed(as_seed_sequence(seed), *words)


def performance_table(datasets: Iterable[Any], algorithms: Iterable[Any] | None = None, *,
                      seed: object = 0, names: Sequence[str] | None = None,
                      n_jobs: int = 1, preset: str | None = None,
                      n_threads: int | None = 1, score: str = "ari",
                      references: str | Sequence[Any] | None = None) -> Table:
    """Scores of clustering algorithms on datasets (HAWKS paper, section V, Fig. 2b and 3).

    Each algorithm is given the true number of clusters K (the ``-2k`` variants ask for
    2K) and its partition is scored against the true labels, by default with the
    adjusted Rand index as the paper does. Noise points (of a Dataset marked with
    ``metadata["noise_label"]``, e.g. read from a clustering-benchmarks battery) are
    clustered with the others but left out of the score, and K counts the clusters
    only, as in clustbench's ``get_score``. A linkage and its ``-2k`` variant cut one
    tree, built once per dataset (the ``trees`` of
    `hawks_deap.clustering.ClusteringAlgorithm`): the same partitions as separate calls.

    With ``score="nca"`` and ``references="all"`` a battery dataset is scored as
    ``clustbench.get_score(labels, results)`` does: for each reference labelling (its
    own K), the algorithm's partition into that K clusters is scored on the labelling's
    non-noise points by the normalised clustering accuracy, and the table holds the
    maximum over the labellings.

    Parameters
    ----------
    datasets : iterable of Dataset or (X, y)
        The labelled datasets.
    algorithms : iterable of str, ClusteringAlgorithm, estimator or callable, optional
        Anything `hawks_deap.clustering.get_algorithm` accepts; default: the paper's six
        (`hawks_deap.clustering.PAPER_ALGORITHMS`: ``kmeans++``, ``gmm``,
        ``average-linkage``, ``single-linkage``, ``average-linkage-2k``,
        ``single-linkage-2k``), so that its tables stay the paper's as the registry grows
        (``available_algorithms()`` lists them all). ``genie`` needs the ``genie`` extra:
        without it, naming it raises an ImportError that says so.
    seed : int, SeedSequence, Generator or None
        Seeds the stochastic algorithms; an algorithm's seed on a dataset derives from it,
        the data and the algorithm's name (`clustering_seed`), so a row does not depend on
        the other datasets or algorithms of the table, their order or the evaluation
        order (an algorithm asked for several K, one per reference labelling, uses that
        seed for each).
    names : sequence of str, optional
        Row names (default: ``metadata["name"]`` or the position).
    n_jobs : int
        Worker processes (datasets are spread over them; the table is the same for any
        number, every seed being fixed by the data and the algorithm); at most
        `hawks_deap._util.workers.MAX_WORKERS`.
    preset : str or None
        Settings of the registered algorithms, a key of
        `hawks_deap.clustering.ALGORITHM_PRESETS` (``"hawks-tevc"``: K-Means++ with 10
        initialisations and the GMM with 3, as in the original HAWKS analysis); columns
        keep the registered names. None: the registry's own settings.
    n_threads : int or None
        BLAS/OpenMP threads of each clustering call, in this process (``n_jobs=1``) or
        in each worker, as Versus mode's ``n_threads`` (default 1: more threads do not
        pay at these sizes, and on a busy machine an OpenMP team waiting for a
        descheduled thread makes a call several times slower). None leaves the
        libraries' own settings (workers then get the default ``threads_per_worker`` of
        `hawks_deap.algorithms.ProblemPool`), and a stochastic algorithm's partition may
        then depend on the thread count.
    score : str
        The external index, by name or alias (`hawks_deap.metrics.get`): ``"ari"`` (the
        default, the paper's), ``"nca"`` (the normalised clustering accuracy,
        clustbench's default), or any other, called ``f(labels_true, labels_pred)``.
    references : None, "all" or sequence
        The reference labellings each partition is scored against. None (default): the
        dataset's labels. ``"all"``: every labelling ``labels0, labels1, ...`` of a
        dataset read from a battery (`hawks_deap.io.batteries.read_battery_labels`, from
        the folder its metadata names); other datasets keep their own labels. A
        sequence: one entry per dataset, each a sequence of label vectors of length N
        (noise marked by the dataset's ``metadata["noise_label"]``, if any). With
        several labellings, each gives its own K (an algorithm is run once per distinct
        K, as clustbench keeps one partition per K) and the table holds the best score
        over them: the maximum, or the minimum for an index where lower is better (an
        undefined score, nan, is skipped as by ``numpy.nanmax``).

    Returns
    -------
    Table
        One row per dataset, one column per algorithm (its name).

    Raises
    ------
    ValueError
        Before any clustering, for a dataset whose pairwise distances a linkage
        algorithm (average, complete, Ward) cannot hold in this machine's memory
        (`hawks_deap.clustering.ClusteringAlgorithm.check_memory`), among the other
        argument checks.
    """
    from hawks_deap._util.workers import check_workers
    from hawks_deap.clustering import (
        PAPER_ALGORITHMS,
        available_algorithms,
        check_preset,
        get_algorithm,
    )

    n_jobs = check_workers("n_jobs", n_jobs)  # the one bound on worker processes
    n_threads = check_threads("n_threads", n_threads)
    preset = check_preset(preset)
    score_function = _score_function(score)
    datasets = list(datasets)
    references = _check_references(references, len(datasets))
    index = _names(datasets, names)
    specs = list(PAPER_ALGORITHMS if algorithms is None else algorithms)
    if not specs:
        raise ValueError("algorithms must name at least one clustering algorithm; valid: "
                         + ", ".join(repr(a) for a in available_algorithms()))
    runners = [get_algorithm(spec, preset=preset) for spec in specs]
    columns = [r.name for r in runners]
    if len(set(columns)) != len(columns):
        raise ValueError(f"algorithms must have distinct names (the table's columns), got "
                         f"{columns}; to compare two settings of one algorithm, name each "
                         "(hawks_deap.clustering.register_algorithm('mine-a', MyAlgo(a=1)))")
    tasks = _performance_tasks(datasets, index, runners, seed, references, score_function)
    for name, (X, *_) in zip(index, tasks, strict=True):  # before any clustering
        for runner in runners:
            runner.check_memory(len(X), {"dataset": name, "n_samples": len(X)})
    if n_jobs > 1 and len(tasks) > 1:
        from hawks_deap.algorithms.pool import ProblemPool

        # each worker is capped for its life (None: the pool's own default)
        with ProblemPool(None, min(n_jobs, len(tasks)), threads_per_worker=n_threads) as pool:
            rows = pool.map(_performance_row, tasks)
    else:
        rows = []
        for task in tasks:  # capped per row: a library a runner imports on first use
            with thread_cap(n_threads):  # (genie's genieclust) is capped from the next row
                rows.append(_performance_row(task))
    values = np.array(rows, dtype=float).reshape(len(tasks), len(runners))
    return Table(tuple(index), tuple(columns), values)


def _best(values: list[float], higher_is_better: bool) -> float:
    """The best score over reference labellings, nan skipped (``numpy.nanmax``'s rule)."""
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return values[0]
    return max(finite) if higher_is_better else min(finite)


def _task_partitions(task: tuple) -> list[dict[int, np.ndarray]]:
    """Each algorithm's partitions of one dataset, one per reference K (asked for)."""
    X, refs, runners, seeds, _ = task
    out = []
    trees: dict = {}  # a linkage and its -2k variant cut one tree
    for runner, seed in zip(runners, seeds, strict=True):
        partitions: dict[int, np.ndarray] = {}  # one per K, as clustbench's results[K]
        for _, k, _ in refs:
            if k not in partitions:
                partitions[k] = np.asarray(runner(X, k, seed, trees=trees))
        out.append(partitions)
    return out


def _performance_row(task: tuple) -> list[float]:
    """Score of every algorithm on one dataset (a task of `performance_table`)."""
    refs, (score, higher_is_better) = task[1], task[4]
    out = []
    for partitions in _task_partitions(task):
        values = [float(score(codes, partitions[k] if scored is None
                              else partitions[k][scored]))
                  for codes, k, scored in refs]
        out.append(_best(values, higher_is_better))
    return out


def clustering_results(datasets: Iterable[Any], algorithms: Iterable[Any] | None = None, *,
                       seed: object = 0, preset: str | None = None,
                       n_threads: int | None = 1,
                       references: str | Sequence[Any] | None = None
                       ) -> list[dict[str, dict[int, np.ndarray]]]:
    """The partitions `performance_table` scores, as clustbench's results.

    Each algorithm is run once per distinct K of the dataset's reference labellings
    (``references``), with `performance_table`'s seeds (`clustering_seed`): the same
    partitions.

    Parameters
    ----------
    datasets : iterable
        As `performance_table`'s.
    algorithms : iterable, optional
        As `performance_table`'s (default: the paper's six).
    seed : int, Generator or None
        As `performance_table`'s.
    preset : str, optional
        As `performance_table`'s.
    n_threads : int or None
        Native threads of each clustering call (1; None: no cap).
    references : {"all"}, sequence or None
        As `performance_table`'s: the labellings whose numbers of clusters are asked.

    Returns
    -------
    list of dict
        Per dataset, ``{algorithm: {K: labels}}`` with labels ``1..K`` and K the number
        of clusters the partition has (a ``-2k`` variant's are keyed by 2K), the shape
        ``clustbench.load_results`` gives (``results[method][K]``): ready for
        ``clustbench.get_score(labels, results[method])`` and for
        `hawks_deap.io.batteries.write_results`. Should an algorithm return fewer
        clusters than asked, its partition is keyed by the clusters it has (where
        ``get_score`` then finds none for the asked K), unless a partition asked for
        that K is there.
    """
    from hawks_deap.clustering import PAPER_ALGORITHMS, check_preset, get_algorithm

    n_threads = check_threads("n_threads", n_threads)
    preset = check_preset(preset)
    datasets = list(datasets)
    references = _check_references(references, len(datasets))
    index = _names(datasets, None)
    specs = list(PAPER_ALGORITHMS if algorithms is None else algorithms)
    runners = [get_algorithm(spec, preset=preset) for spec in specs]
    if not runners or len({r.name for r in runners}) != len(runners):
        raise ValueError(f"algorithms must name distinct clustering algorithms, got "
                         f"{[r.name for r in runners]}")
    out = []
    for task in _performance_tasks(datasets, index, runners, seed, references,
                                   _score_function("ari")):
        with thread_cap(n_threads):
            found = _task_partitions(task)
        results: dict[str, dict[int, np.ndarray]] = {}
        for runner, partitions in zip(runners, found, strict=True):
            mine = results.setdefault(runner.name, {})
            for asked, labels in partitions.items():
                codes, k = encode_labels(labels)
                if k not in mine or asked == k:
                    mine[k] = codes + 1
        out.append(results)
    return out


def best_algorithms(table: Table, *, tol: float = 0.0, tie_label: str = "tied") -> list[str]:
    """Name of the best algorithm on each row (the colouring of the paper's Fig. 2b).

    Parameters
    ----------
    table : Table
        E.g. from `performance_table` (higher is better).
    tol : float
        Scores within ``tol`` of the row maximum count as equal.
    tie_label : str
        Label of rows where two or more algorithms share the best score (in the paper
        such datasets were trivial: every tie was at ARI = 1).

    Returns
    -------
    list of str
    """
    tol = check_float("tol", tol, low=0.0)
    if not isinstance(table, Table):
        raise TypeError(f"table must be a hawks_deap.analysis.features.Table, not {type(table)}")
    bad = [name for name, row in zip(table.index, table.values, strict=True)
           if not np.all(np.isfinite(row))]  # NaN would compare false: the row, "tied"
    if bad:
        raise ValueError(f"table has non-finite scores in rows {bad}")
    out = []
    for row in table.values:
        best = np.flatnonzero(row >= row.max() - tol)
        out.append(table.columns[int(best[0])] if best.shape[0] == 1 else tie_label)
    return out


# --------------------------------------------------------------------------- instance space


def _as_matrix(features: Any, feature_names: Sequence[str] | None
               ) -> tuple[np.ndarray, tuple[str, ...]]:
    if isinstance(features, Table):
        names = tuple(features.columns)
        values = features.values
        if feature_names is not None:
            names = tuple(feature_names)
            values = np.stack([features.column(c) for c in names], axis=1)
        return np.asarray(values, dtype=float), names
    if isinstance(features, Mapping):
        raise TypeError("features must be a table (rows of features), not one mapping; "
                        "wrap a single dict in a list")
    rows = list(features)
    if rows and isinstance(rows[0], Mapping):
        names = tuple(feature_names) if feature_names is not None else tuple(
            c for c in FEATURE_NAMES if c in rows[0]) or tuple(rows[0])
        try:
            values = np.array([[float(r[c]) for c in names] for r in rows], dtype=float)
        except KeyError as error:
            raise ValueError(f"feature {error.args[0]!r} is missing from a row") from None
        return values, names
    values = np.asarray(rows, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"features must be 2-D (n_datasets, n_features), got shape "
                         f"{values.shape}")
    if feature_names is None:
        names = (FEATURE_NAMES if values.shape[1] == len(FEATURE_NAMES)
                 else tuple(f"f{i}" for i in range(values.shape[1])))
    else:
        names = tuple(feature_names)
    if len(names) != values.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names for {values.shape[1]} "
                         "columns")
    return values, names


#: The ``"format"`` of a saved instance space (`InstanceSpace.save`).
SPACE_FORMAT = "hawks-deap instance space"


class InstanceSpace:
    """A 2-D instance space: standardised problem features projected by PCA (paper V).

    Fit on one collection of datasets (their features table), then place any other
    datasets in the same space with `transform`.

    Parameters
    ----------
    n_components : int
        Dimension of the projection (2 for the paper's plots).

    Attributes
    ----------
    feature_names : tuple of str
        The features used, in column order.
    mean_, scale_ : numpy.ndarray of shape (F,)
        Mean and population standard deviation of each feature over the fitted
        collection; a constant feature gets scale 1 (it only shifts).
    components_ : numpy.ndarray of shape (n_components, F)
        Principal axes (unit rows); each sign is chosen so that the largest-magnitude
        loading is positive, making the projection deterministic.
    explained_variance_ratio_ : numpy.ndarray of shape (n_components,)
        Share of the total variance of the standardised features along each axis.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> table = rng.normal(size=(20, 7))
    >>> space = InstanceSpace().fit(table)
    >>> space.transform(table).shape
    (20, 2)
    """

    def __init__(self, n_components: int = 2) -> None:
        self.n_components = check_int("n_components", n_components, minimum=1)
        self.feature_names: tuple[str, ...] = ()
        self.mean_: np.ndarray | None = None
        self.scale_: np.ndarray | None = None
        self.components_: np.ndarray | None = None
        self.explained_variance_ratio_: np.ndarray | None = None

    def fit(self, features: Any, feature_names: Sequence[str] | None = None
            ) -> InstanceSpace:
        """Learn the standardisation and the principal axes from a features table.

        Parameters
        ----------
        features : Table, sequence of dicts, or array of shape (n_datasets, F)
            E.g. `features_table` output or a list of `problem_features` dicts.
        feature_names : sequence of str, optional
            The features to use (default: all, in `FEATURE_NAMES` order when they are
            those).

        Returns
        -------
        InstanceSpace
            ``self``.
        """
        values, names = _as_matrix(features, feature_names)
        n, f = values.shape
        if n < 2:
            raise ValueError(f"an instance space needs at least 2 datasets, got {n}")
        if self.n_components > min(n, f):
            raise ValueError(f"n_components must be <= min(n_datasets, n_features) = "
                             f"{min(n, f)}, got {self.n_components}")
        if not np.all(np.isfinite(values)):
            bad = [names[j] for j in range(f) if not np.all(np.isfinite(values[:, j]))]
            rows = np.flatnonzero(~np.isfinite(values).all(axis=1))
            which = ""
            if isinstance(features, Table):  # (its rows are named: say which datasets)
                shown = ", ".join(str(features.index[i]) for i in rows[:3])
                which = f" of {len(rows)} dataset(s): {shown}{', ...' if len(rows) > 3 else ''}"
            raise ValueError(f"features must be finite; non-finite values in {bad}{which} "
                             "(e.g. the silhouette of a dataset of one cluster)")
        mean = values.mean(axis=0)
        scale = values.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        z = (values - mean) / scale
        _, singular, vt = np.linalg.svd(z, full_matrices=False)
        signs = np.sign(vt[np.arange(vt.shape[0]), np.argmax(np.abs(vt), axis=1)])
        vt = vt * np.where(signs == 0, 1.0, signs)[:, None]
        variance = singular**2
        total = variance.sum()
        ratio = variance / total if total > 0 else np.zeros_like(variance)
        self.feature_names = names
        self.mean_, self.scale_ = mean, scale
        self.components_ = vt[: self.n_components].copy()
        self.explained_variance_ratio_ = ratio[: self.n_components].copy()
        return self

    def transform(self, features: Any) -> np.ndarray:
        """Coordinates of datasets in the fitted space, shape (n_datasets, n_components).

        ``features`` must have the fitted features (extra columns of a Table or of
        dicts are ignored; arrays must have the same columns in the same order).

        Parameters
        ----------
        features : Table, sequence of dicts, or array of shape (n_datasets, F)
            The datasets' features, as for `fit`.

        Returns
        -------
        numpy.ndarray of shape (n_datasets, n_components)
            Each row standardised with ``mean_`` and ``scale_``, projected on
            ``components_``.

        Raises
        ------
        RuntimeError
            If the space is not fitted yet.
        """
        z = self.standardise(features)
        assert self.components_ is not None  # (standardise checks it)
        return z @ self.components_.T

    def standardise(self, features: Any) -> np.ndarray:
        """Datasets' features in the space's standardised units, shape (n_datasets, F).

        Parameters
        ----------
        features : Table, sequence of dicts, or array of shape (n_datasets, F)
            The datasets' features, as for `transform`.

        Returns
        -------
        numpy.ndarray
            ``(features - mean_) / scale_``, columns in ``feature_names`` order.
        """
        if self.components_ is None:
            raise RuntimeError("InstanceSpace is not fitted yet: call fit(features) first")
        values, _ = _as_matrix(features, self.feature_names)
        return (values - self.mean_) / self.scale_

    def target_problem(self, point: Any, n_samples: int, n_clusters: int, n_dims: int,
                       **kwargs: Any) -> Any:
        """A problem that evolves datasets toward ``point`` of this space.

        Parameters
        ----------
        point : sequence of float
            The target coordinates, one per component (e.g. an empty region's centre).
        n_samples, n_clusters, n_dims : int
            The datasets' N, K and D (K and D place them in the space too).
        **kwargs
            Further arguments of `hawks_deap.problems.SpaceTargetProblem` (constraints,
            ``min_size``, ...).

        Returns
        -------
        hawks_deap.problems.SpaceTargetProblem
            Its fitness is the distance of a dataset's coordinates here to ``point``.

        Raises
        ------
        RuntimeError
            If the space is not fitted yet.
        """
        from hawks_deap.problems.features import SpaceTargetProblem

        if self.components_ is None:
            raise RuntimeError("InstanceSpace is not fitted yet: call fit(features) first")
        return SpaceTargetProblem(n_samples, n_clusters, n_dims, point,
                                  feature_names=self.feature_names, mean=self.mean_,
                                  scale=self.scale_, components=self.components_, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """The fitted space as JSON-ready data (`from_dict` reads it back exactly).

        Raises
        ------
        RuntimeError
            If the space is not fitted yet.
        """
        if self.components_ is None:
            raise RuntimeError("InstanceSpace is not fitted yet: call fit(features) first")
        assert self.mean_ is not None and self.scale_ is not None
        assert self.explained_variance_ratio_ is not None
        # floats as Python floats: json writes the shortest repr, which reads back exactly
        return {"format": SPACE_FORMAT, "version": 1, "n_components": self.n_components,
                "feature_names": list(self.feature_names), "mean": self.mean_.tolist(),
                "scale": self.scale_.tolist(), "components": self.components_.tolist(),
                "explained_variance_ratio": self.explained_variance_ratio_.tolist()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> InstanceSpace:
        """A fitted space from `to_dict`'s data, checked (shapes, finite numbers).

        Parameters
        ----------
        data : mapping
            As `to_dict` writes it.

        Returns
        -------
        InstanceSpace

        Raises
        ------
        ValueError
            If ``data`` is not a saved instance space or its arrays do not agree.
        """
        from hawks_deap.problems.features import space_arrays

        if not isinstance(data, Mapping) or data.get("format") != SPACE_FORMAT:
            raise ValueError(f"not a saved instance space (no \"format\": "
                             f"{SPACE_FORMAT!r})")
        if type(data.get("version")) is not int or data["version"] != 1:
            raise ValueError(f"instance space version {data.get('version')!r}: this "
                             "hawks-deap reads version 1")
        try:
            components = np.asarray(data["components"], dtype=float)
            names, mean, scale, axes, _ = space_arrays(
                np.zeros(components.shape[0]), data["feature_names"], data["mean"],
                data["scale"], components)
            ratio = np.asarray(data["explained_variance_ratio"], dtype=float)
        except KeyError as error:
            raise ValueError(f"instance space without {error}") from None
        if (ratio.shape != (axes.shape[0],) or type(data.get("n_components")) is not int
                or data["n_components"] != axes.shape[0]):
            raise ValueError(f"instance space: n_components {data.get('n_components')!r} and "
                             f"explained_variance_ratio {ratio.tolist()} do not match "
                             f"{axes.shape[0]} components")
        # what `fit` saves: a PCA's orthonormal axes and shares of the variance
        if not (np.all(np.abs(axes) <= 1 + 1e-6)  # (an orthonormal row's entries; no overflow)
                and np.allclose(axes @ axes.T, np.eye(axes.shape[0]), rtol=0, atol=1e-6)):
            raise ValueError("instance space: components must be orthonormal rows (a PCA's "
                             f"axes), got {axes.tolist()}")
        if (not np.all(np.isfinite(ratio)) or np.any(ratio < 0)
                or ratio.sum() > 1 + 1e-9):
            raise ValueError(f"instance space: explained_variance_ratio must be shares of the "
                             f"variance (>= 0, summing to <= 1), got {ratio.tolist()}")
        space = cls(axes.shape[0])
        space.feature_names, space.mean_, space.scale_ = names, mean, scale
        space.components_, space.explained_variance_ratio_ = axes, ratio
        return space

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the fitted space as JSON (atomically); `load` reads it back.

        Parameters
        ----------
        path : str or os.PathLike
            The file (replaced if it exists; a symbolic link there is refused with a
            ValueError, neither replaced nor written through).
        """
        from hawks_deap._util.writes import write_file_atomic

        text = json.dumps(self.to_dict(), indent=2) + "\n"
        write_file_atomic(Path(path), text.encode("utf-8"), replace=True)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> InstanceSpace:
        """Read a space `save` wrote.

        Parameters
        ----------
        path : str or os.PathLike
            The JSON file.

        Returns
        -------
        InstanceSpace

        Raises
        ------
        ValueError
            If the file cannot be read or does not hold a saved space, naming it.
        """
        from hawks_deap._util.files import read_json

        data = read_json(Path(path))
        try:
            return cls.from_dict(data)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None

    def fit_transform(self, features: Any, feature_names: Sequence[str] | None = None
                      ) -> np.ndarray:
        """`fit` then `transform` the same collection.

        Parameters
        ----------
        features : Table, sequence of dicts, or array of shape (n_datasets, F)
            As for `fit`.
        feature_names : sequence of str, optional
            As for `fit`.

        Returns
        -------
        numpy.ndarray of shape (n_datasets, n_components)
            The coordinates of the fitted collection.
        """
        values, names = _as_matrix(features, feature_names)
        return self.fit(values, names).transform(values)

    def axis_labels(self) -> list[str]:
        """``"PC1 (xx.x%)"``-style labels of the axes."""
        if self.explained_variance_ratio_ is None:
            return [f"PC{i + 1}" for i in range(self.n_components)]
        return [f"PC{i + 1} ({100 * r:.1f}%)"
                for i, r in enumerate(self.explained_variance_ratio_)]

    def loadings(self) -> dict[str, tuple[float, ...]]:
        """Contribution of each feature to each axis (the paper's Fig. 2 caption)."""
        if self.components_ is None:
            raise RuntimeError("InstanceSpace is not fitted yet: call fit(features) first")
        return {name: tuple(float(v) for v in self.components_[:, j])
                for j, name in enumerate(self.feature_names)}

