"""`make_hawks`: one call for one dataset, in the style of ``sklearn.datasets.make_blobs``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from hawks_deap._util.validation import as_seed_sequence, check_bool, check_float, check_int

__all__ = ["make_hawks"]


def make_hawks(n_samples: int = 1000, n_features: int = 2, n_clusters: int = 5, *,
               silhouette: float = 0.5, max_overlap: float | None = 0.1,
               min_eccentricity: float | None = None, generations: int = 100,
               population_size: int = 10,
               mean_mutation: str | Callable[..., Any] = "pso",
               random_state: Any = None, return_model: bool = False
               ) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, Any]:
    """Evolve one HAWKS dataset whose silhouette is close to a target.

    The defaults are those of ``hawks-deap generate`` (HAWKS paper, Index mode): P=10,
    G=100, p_c=0.7, P_f=0.5, PSO-random mean mutation, overlap <= 0.1, the
    squared-Euclidean silhouette; the same ``random_state`` gives the dataset
    ``hawks-deap generate --seed`` writes, byte for byte.

    Parameters
    ----------
    n_samples, n_features, n_clusters : int
        N, D and K (as ``make_blobs``' ``centers``: a number of clusters).
    silhouette : float
        The target silhouette s_t, in [-1, 1].
    max_overlap : float or None
        Upper bound of the overlap (fraction of points whose nearest neighbour lies in
        another cluster); None: no overlap constraint.
    min_eccentricity : float or None
        Lower bound of the eccentricity (largest eigenvalue ratio of some cluster);
        None: no eccentricity constraint.
    generations, population_size : int
        G and P of the evolution.
    mean_mutation : str or callable
        Mean operator (see `hawks_deap.evolve`).
    random_state : int, SeedSequence, Generator or None
        The seed (scikit-learn's name): the same value gives the same dataset. None
        draws it from Python's ``random`` (``random.seed(...)`` first repeats the call).
    return_model : bool
        Also return the `hawks_deap.Dataset` (genes, metadata, `regenerate`).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Integer labels 0..n_clusters-1.
    dataset : hawks_deap.Dataset
        Only with ``return_model=True``.

    Examples
    --------
    >>> import hawks_deap as hd
    >>> X, y = hd.make_hawks(n_samples=200, n_clusters=3, generations=5, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((200, 2), [0, 1, 2])
    """
    from hawks_deap.algorithms import loop
    from hawks_deap.problems import Eccentricity, IndexProblem, Overlap

    # checked here under make_hawks' own names (IndexProblem says n_dims, target, ...)
    return_model = check_bool("return_model", return_model)
    min_size = inspect.signature(IndexProblem).parameters["min_size"].default
    n_clusters = check_int("n_clusters", n_clusters, minimum=2)
    n_samples = check_int("n_samples", n_samples, minimum=1)
    if n_samples < min_size * n_clusters:
        raise ValueError(f"n_samples must be >= {min_size} * n_clusters = "
                         f"{min_size * n_clusters} (every cluster gets at least {min_size} "
                         f"points, as in HAWKS), got {n_samples}")
    check_int("n_features", n_features, minimum=1)
    check_float("silhouette", silhouette, low=-1.0, high=1.0)
    if max_overlap is not None:
        check_float("max_overlap", max_overlap, low=0.0, high=1.0)
    if min_eccentricity is not None:
        check_float("min_eccentricity", min_eccentricity, low=1.0)
    # (a Generator is not consumed, and None would draw from Python's random twice)
    if random_state is not None and not isinstance(random_state, np.random.Generator):
        try:
            as_seed_sequence(random_state)
        except (TypeError, ValueError) as error:
            raise type(error)(f"random_state: {error}") from None
    constraints: list[Any] = []
    if max_overlap is not None:
        constraints.append(Overlap(max=max_overlap))
    if min_eccentricity is not None:
        constraints.append(Eccentricity(min=min_eccentricity))
    problem = IndexProblem(n_samples, n_clusters, n_features, silhouette,
                           constraints=constraints)
    result = loop.evolve(problem, population_size=population_size, generations=generations,
                         mean_mutation=mean_mutation, seed=random_state)
    dataset = result.best_dataset()
    X, y = dataset.X.copy(), np.asarray(dataset.y, dtype=np.int64)
    return (X, y, dataset) if return_model else (X, y)
