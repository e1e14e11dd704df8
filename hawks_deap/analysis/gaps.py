"""Gaps of an instance space, and how much of it a collection covers.

The instance space's region is the convex hull of a collection's points (its datasets
placed by `hawks_deap.analysis.features.InstanceSpace`): every point inside it lies
between datasets that exist, so its feature values are of a kind the collection (and,
for a generator's suite among it, the generator) reaches; outside it nothing says so.
The region is cut into square cells of side ``cell`` (standardised units of the space);
a cell belongs to the region when its centre lies inside the hull.

- **Coverage**: the share of the region's cells that hold at least one dataset
  (`CoverageGrid.coverage`). It counts where datasets are, not how many: a new dataset
  in an empty cell raises it by one cell, one in an occupied cell by nothing.
- **Gaps** (`find_gaps`): empty cells of the region, chosen one at a time as the empty
  cell whose centre is farthest from every dataset and every cell chosen before (a
  greedy maximin design): the largest holes first, and no two targets side by side.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> points = rng.uniform(-2, 2, size=(40, 2))
>>> grid = CoverageGrid.from_region(points, cell=0.5)
>>> 0 < grid.coverage(points) <= 1
True
>>> find_gaps(points, 3, cell=0.5).shape
(3, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hawks_deap._util.validation import check_float, check_int

__all__ = ["CoverageGrid", "GapPlan", "Reach", "find_gaps", "plan_gaps"]


def _points(name: str, points: Any, dims: int | None = None) -> np.ndarray:
    """``points`` as a finite float array of shape (n, d), checked."""
    array = np.asarray(points, dtype=float)
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"{name} must be an array of shape (n_points, n_components), got "
                         f"shape {array.shape}")
    if dims is not None and array.shape[1] != dims:
        raise ValueError(f"{name} must have {dims} columns (the grid's), got {array.shape[1]}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite")
    return array


@dataclass(frozen=True)
class CoverageGrid:
    """Square cells over the convex hull of a collection's points in an instance space.

    Made by `from_region`. A cell is ``(i_0, i_1, ...)``: it spans
    ``[origin + i * cell, origin + (i + 1) * cell)`` on each axis.

    Attributes
    ----------
    cell : float
        The side of a cell (standardised units of the space).
    origin : numpy.ndarray of shape (d,)
        The corner of cell ``(0, 0, ...)``.
    shape : tuple of int
        Cells along each axis (the region's bounding box).
    inside : numpy.ndarray of bool, shape ``shape``
        The region's cells (centre inside the hull).
    """

    cell: float
    origin: np.ndarray
    shape: tuple[int, ...]
    inside: np.ndarray

    @classmethod
    def from_region(cls, points: Any, *, cell: float = 0.25) -> CoverageGrid:
        """The grid of the convex hull of ``points``.

        Parameters
        ----------
        points : array of shape (n, d)
            The collection's coordinates (at least d + 1 points not in one hyperplane).
        cell : float
            The side of a cell (> 0).

        Returns
        -------
        CoverageGrid

        Raises
        ------
        ValueError
            For bad points or cell, or points whose hull is flat (no area).
        """
        from scipy.spatial import Delaunay, QhullError

        points = _points("points", points)
        cell = check_float("cell", cell, low=0.0, low_open=True)
        origin = np.floor(points.min(axis=0) / cell) * cell
        shape = tuple(int(n) for n in np.floor((points.max(axis=0) - origin) / cell) + 1)
        if int(np.prod(shape, dtype=np.int64)) > 10**7:
            raise ValueError(f"cell={cell} makes {np.prod(shape):,} cells over the region's "
                             "bounding box; at most 10,000,000: use a larger cell")
        try:
            hull = Delaunay(points)
        except QhullError as error:
            raise ValueError(f"the points' convex hull has no volume (they lie in a lower-"
                             f"dimensional space): {str(error).splitlines()[0]}") from None
        centres = cls._centres_of(origin, shape, cell)
        inside = (hull.find_simplex(centres) >= 0).reshape(shape)
        return cls(cell, origin, shape, inside)

    @staticmethod
    def _centres_of(origin: np.ndarray, shape: tuple[int, ...], cell: float) -> np.ndarray:
        axes = [origin[k] + (np.arange(n) + 0.5) * cell for k, n in enumerate(shape)]
        return np.stack([a.ravel() for a in np.meshgrid(*axes, indexing="ij")], axis=1)

    def centres(self) -> np.ndarray:
        """Every cell's centre, shape (n_cells, d), in ``numpy.ravel`` order of ``shape``."""
        return self._centres_of(self.origin, self.shape, self.cell)

    def cell_index(self, points: Any) -> np.ndarray:
        """The cell of each point: integer indices along each axis, shape (n, d).

        Cells continue beyond the grid's box at the same side, so a point outside it gets
        indices below 0 or at least ``shape`` (`occupied` leaves those out).

        Parameters
        ----------
        points : array of shape (n, d)
            Coordinates in the space.

        Returns
        -------
        numpy.ndarray of int64, shape (n, d)
        """
        points = _points("points", points, len(self.shape))
        return np.floor((points - self.origin) / self.cell).astype(np.int64)

    def occupied(self, points: Any) -> np.ndarray:
        """Cells holding at least one of ``points`` (in the region or not).

        Parameters
        ----------
        points : array of shape (n, d)
            Coordinates in the space.

        Returns
        -------
        numpy.ndarray of bool, shape ``shape``
        """
        index = self.cell_index(points)
        within = np.all((index >= 0) & (index < np.array(self.shape)), axis=1)
        out = np.zeros(self.shape, dtype=bool)
        out[tuple(index[within].T)] = True
        return out

    def coverage(self, points: Any) -> float:
        """The share of the region's cells that hold at least one of ``points``.

        Parameters
        ----------
        points : array of shape (n, d)
            Coordinates in the space.

        Returns
        -------
        float
            In [0, 1].
        """
        return float((self.occupied(points) & self.inside).sum() / self.inside.sum())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: cell, origin, shape and the number of the region's cells."""
        return {"cell": self.cell, "origin": self.origin.tolist(), "shape": list(self.shape),
                "region_cells": int(self.inside.sum())}


def find_gaps(points: Any, n: int, *, cell: float = 0.25, region: Any = None
              ) -> np.ndarray:
    """Centres of ``n`` empty cells of the region, the largest holes first.

    Greedy maximin: each next target is the empty region cell whose centre is farthest
    from every point and every target chosen before (ties: the first cell in ``ravel``
    order), so the result is deterministic.

    Parameters
    ----------
    points : array of shape (m, d)
        The collection's coordinates in the space.
    n : int
        How many gaps (>= 1).
    cell : float
        The side of a cell (`CoverageGrid`).
    region : array of shape (r, d), optional
        The points whose hull is the region (default: ``points``).

    Returns
    -------
    numpy.ndarray of shape (n, d)
        The targets, in the order chosen.

    Raises
    ------
    ValueError
        If the region has fewer than ``n`` empty cells (naming how many it has).
    """
    from scipy.spatial import cKDTree

    points = _points("points", points)
    n = check_int("n", n, minimum=1)
    grid = CoverageGrid.from_region(points if region is None else region, cell=cell)
    empty = (grid.inside & ~grid.occupied(points)).ravel()
    candidates = grid.centres()[empty]
    if len(candidates) < n:
        raise ValueError(f"n={n} gaps asked, and the region has {len(candidates)} empty "
                         f"cells of side {cell} (of {int(grid.inside.sum())}): ask fewer, "
                         "or use a smaller cell")
    nearest, _ = cKDTree(points).query(candidates)
    chosen = []
    for _ in range(n):
        i = int(np.argmax(nearest))
        chosen.append(i)
        nearest = np.minimum(nearest, np.linalg.norm(candidates - candidates[i], axis=1))
    return candidates[chosen]


# ------------------------------------------------------------------ what the generator reaches


def _layout_entropy(n_samples: int, n_clusters: int, min_size: int) -> tuple[float, float]:
    """Mean and standard deviation of the size entropy of the generator's random layouts.

    64 draws with a fixed seed (the plan must repeat exactly).
    """
    from hawks_deap.genome.initialization import cluster_sizes

    rng = np.random.default_rng(0)
    values = []
    for _ in range(64):
        p = cluster_sizes(n_samples, n_clusters, rng, min_size=min_size) / n_samples
        values.append(-(p * np.log(p)).sum() / np.log(n_clusters))
    return float(np.mean(values)), float(np.std(values))


@dataclass(frozen=True)
class Reach:
    """Where a generator's runs can place datasets in a 2-D instance space (linear model).

    A run fixes K, D (and, through its layout, the size entropy); its individuals move
    the four targetable features (`hawks_deap.problems.features.TARGETABLE_FEATURES`).
    The model: for a run of (K, D), those features range over a box (standardised
    units): the range shown by the generated datasets of the collection whose (K, D) is
    nearest to it (in log K and log D: the features' reach depends on both, e.g. a
    cluster's eigenvalue ratio grows with D). The run reaches the zonotope
    ``offset(K, D) + components[:, free] @ box``. The **margin** of a point for (K, D)
    is the largest t such that the point is reached with every free feature at least t
    inside its range, less what two standard deviations of the layout's entropy may take
    (``2 spread / s``, s the smallest singular value of the free features' columns: the
    free features' change that makes up for a move of the point): negative outside,
    larger where no feature has to be extreme. Made by `from_collection`.

    Attributes
    ----------
    space : InstanceSpace
        The fitted 2-D space.
    low, high : numpy.ndarray of shape (m, 4)
        Each candidate's standardised range of each free feature.
    settings : numpy.ndarray of shape (m, 2)
        The candidate (K, D) pairs.
    offsets : numpy.ndarray of shape (m, 2)
        Each pair's point with the free features at their standardised 0 and the size
        entropy at the mean of the generator's random layouts for that K.
    spread : numpy.ndarray of shape (m,)
        How far (space units) one standard deviation of that entropy moves the point:
        the layout is drawn by the run, so a small K (K = 2: sizes anywhere from even to
        lopsided) places its run less surely.
    n_samples, min_size : int
        The runs' N and smallest cluster size (they set the layouts' entropy).
    """

    space: Any
    low: np.ndarray
    high: np.ndarray
    settings: np.ndarray
    offsets: np.ndarray
    spread: np.ndarray
    n_samples: int
    min_size: int

    @classmethod
    def from_collection(cls, space: Any, features: Any, *, reached: Any = None,
                        n_clusters: Any = range(2, 31), n_dims: Any = range(2, 51),
                        n_samples: int = 1000, min_size: int = 10) -> Reach:
        """The reach of runs of N points, K in ``n_clusters`` and D in ``n_dims``.

        Parameters
        ----------
        space : InstanceSpace
            Fitted, with 2 components and every feature of `FEATURE_NAMES`.
        features : Table or array of shape (n, F)
            The collection's features (as ``space.fit`` took them).
        reached : array of bool, shape (n,), optional
            The datasets whose free features set the boxes (e.g. those a generator
            made); default: all.
        n_clusters, n_dims : iterable of int
            Candidate K (>= 2) and D (>= 1).
        n_samples, min_size : int
            The runs' N and smallest cluster size.

        Returns
        -------
        Reach
        """
        from hawks_deap.analysis.features import FEATURE_NAMES
        from hawks_deap.problems.features import TARGETABLE_FEATURES

        if space.components_ is None or space.components_.shape[0] != 2:
            raise ValueError("the reach is computed in a fitted 2-D instance space")
        if set(space.feature_names) != set(FEATURE_NAMES):
            raise ValueError(f"the space must use the {len(FEATURE_NAMES)} problem features "
                             f"{FEATURE_NAMES}, got {space.feature_names}")
        n_samples = check_int("n_samples", n_samples, minimum=2)
        min_size = check_int("min_size", min_size, minimum=1)
        z = space.standardise(features)
        raw = z * space.scale_ + space.mean_
        mask = np.ones(len(z), dtype=bool) if reached is None else np.asarray(reached, bool)
        if mask.shape != (len(z),) or not mask.any():
            raise ValueError(f"reached must be {len(z)} booleans with at least one True")
        names = list(space.feature_names)
        free = [names.index(n) for n in TARGETABLE_FEATURES]
        pairs = [(check_int("n_clusters", k, minimum=2), check_int("n_dims", d, minimum=1))
                 for k in n_clusters for d in n_dims]
        pairs = [(k, d) for k, d in pairs if k * min_size <= n_samples]
        if not pairs:
            raise ValueError(f"no candidate K fits n_samples={n_samples} with clusters of at "
                             f"least min_size={min_size} points")
        settings = np.array(pairs, dtype=np.int64)
        seen = np.log(np.maximum(raw[mask][:, [names.index("n_clusters"),
                                               names.index("dimensionality")]], 1.0))
        groups, group_of = np.unique(seen, axis=0, return_inverse=True)
        # each candidate takes the box of the nearest (K, D) the generator was seen at
        nearest = np.argmin(np.linalg.norm(np.log(settings)[:, None] - groups[None], axis=2),
                            axis=1)
        zf = z[mask][:, free]
        lows = np.array([zf[group_of.ravel() == g].min(axis=0) for g in range(len(groups))])
        highs = np.array([zf[group_of.ravel() == g].max(axis=0) for g in range(len(groups))])
        fixed = np.zeros((len(pairs), len(names)))
        # once per K (each K appears with every D)
        entropy = {k: _layout_entropy(n_samples, k, min_size) for k in {k for k, _ in pairs}}
        for row, (k, d) in enumerate(pairs):
            fixed[row, names.index("n_clusters")] = k
            fixed[row, names.index("dimensionality")] = d
            fixed[row, names.index("entropy")] = entropy[k][0]
        zfixed = (fixed - space.mean_) / space.scale_
        zfixed[:, free] = 0.0
        e = names.index("entropy")
        spread = (np.array([entropy[k][1] for k, _ in pairs]) / space.scale_[e]
                  * float(np.linalg.norm(space.components_[:, e])))
        return cls(space, lows[nearest], highs[nearest], settings,
                   zfixed @ space.components_.T, spread, n_samples, min_size)

    def margins(self, points: Any) -> np.ndarray:
        """The margin of each point for each candidate (K, D), shape (n_points, m).

        The zonotope's edges are parallel to the free features' columns, so its facet
        normals are their perpendiculars: the margin is the smallest slack over the
        facets, each divided by how fast shrinking the box moves that facet (tested
        against a linear program in ``tests/test_fill.py``).

        Parameters
        ----------
        points : array of shape (n_points, 2)
            Coordinates in the space.

        Returns
        -------
        numpy.ndarray of shape (n_points, m)
        """
        from hawks_deap.problems.features import TARGETABLE_FEATURES

        points = _points("points", points, 2)
        names = list(self.space.feature_names)
        columns = self.space.components_[:, [names.index(n) for n in TARGETABLE_FEATURES]]
        normals = np.stack([-columns[1], columns[0]], axis=1)
        lengths = np.linalg.norm(normals, axis=1)
        normals = normals[lengths > 0] / lengths[lengths > 0, None]
        normals = np.vstack([normals, -normals])
        speed = np.abs(normals @ columns)  # (facets, 4)
        centre, half = (self.low + self.high) / 2, (self.high - self.low) / 2  # (m, 4)
        support = (centre @ columns.T) @ normals.T + half @ speed.T  # (m, facets)
        r = points[:, None, :] - self.offsets[None, :, :]
        slack = support[None] - np.einsum("pmd,fd->pmf", r, normals)
        smallest = np.linalg.svd(columns, compute_uv=False)[-1]
        return (slack / speed.sum(axis=1)).min(axis=2) - 2.0 * self.spread / smallest


@dataclass(frozen=True)
class GapPlan:
    """Targets in the gaps of an instance space, each with the run settings to reach it.

    Attributes
    ----------
    grid : CoverageGrid
        The region's cells.
    targets : numpy.ndarray of shape (n, 2)
        Cell centres, in the order chosen.
    n_clusters, n_dims : numpy.ndarray of int, shape (n,)
        Each target's K and D.
    margins : numpy.ndarray of shape (n,)
        Each target's margin for its (K, D) (`Reach.margins`).
    reachable_cells : int
        The region's cells with a margin of at least the plan's minimum.
    """

    grid: CoverageGrid
    targets: np.ndarray
    n_clusters: np.ndarray
    n_dims: np.ndarray
    margins: np.ndarray
    reachable_cells: int


def plan_gaps(points: Any, reach: Reach, n: int, *, cell: float = 0.25,
              min_margin: float = 0.1, tolerance: float = 0.1) -> GapPlan:
    """``n`` empty cells the generator can reach, and the (K, D) of a run for each.

    The candidates are the empty cells of the region (`CoverageGrid`) whose centre has
    a margin of at least ``min_margin`` for some candidate (K, D); they are chosen by
    greedy maximin (`find_gaps`' rule). A target's (K, D) is the cheapest (smallest
    K + D) among those whose margin is within ``tolerance`` of the best.

    Parameters
    ----------
    points : array of shape (m, 2)
        The collection's coordinates (its hull is the region).
    reach : Reach
        What the runs reach.
    n : int
        How many targets.
    cell : float
        The side of a cell.
    min_margin : float
        The smallest margin of a target (standardised units of the free features). A
        negative value admits targets up to that far outside the estimated reach (a
        linear estimate: such targets may still be reached, or missed).
    tolerance : float
        How far below the best margin a cheaper (K, D) may be.

    Returns
    -------
    GapPlan

    Raises
    ------
    ValueError
        If fewer than ``n`` cells qualify (naming how many do).
    """
    from scipy.spatial import cKDTree

    points = _points("points", points, 2)
    n = check_int("n", n, minimum=1)
    min_margin = check_float("min_margin", min_margin)
    tolerance = check_float("tolerance", tolerance, low=0.0)
    grid = CoverageGrid.from_region(points, cell=cell)
    inside = grid.inside.ravel()
    if not inside.any():
        raise ValueError(f"cell={cell} leaves no cell centre inside the region (the points' "
                         "convex hull): ask a smaller cell")
    centres = grid.centres()[inside]
    margins = reach.margins(centres)
    best = margins.max(axis=1)
    reachable = int((best >= min_margin).sum())
    empty = ~grid.occupied(points).ravel()[inside]
    ok = empty & (best >= min_margin)
    candidates, margins, best = centres[ok], margins[ok], best[ok]
    if len(candidates) < n:
        advice = "ask fewer, or lower" if len(candidates) else "lower"
        raise ValueError(f"n={n} gaps asked, and {len(candidates)} empty cells of the "
                         f"region (of {int(inside.sum())}, cell={cell}) have a margin >= "
                         f"{min_margin}: {advice} min_margin or cell")
    nearest, _ = cKDTree(points).query(candidates)
    chosen = []
    for _ in range(n):
        i = int(np.argmax(nearest))
        chosen.append(i)
        nearest = np.minimum(nearest, np.linalg.norm(candidates - candidates[i], axis=1))
    cost = reach.settings.sum(axis=1)
    picks = []
    for i in chosen:
        near_best = (margins[i] >= best[i] - tolerance) & (margins[i] >= min_margin)
        picks.append(int(np.flatnonzero(near_best)[np.argmin(cost[near_best])]))
    settings = reach.settings[picks]
    return GapPlan(grid, candidates[chosen], settings[:, 0], settings[:, 1],
                   margins[chosen, picks], reachable)
