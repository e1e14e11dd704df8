"""Genes, genotypes and the run layout.

A dataset is a genotype of K genes, one per cluster (HAWKS paper, section III-A). A gene
is a Gaussian cluster: mean ``mu`` (D,), axis variances ``lambda`` (D,) (the eigenvalues
of the covariance) and a rotation ``R`` (D, D); its covariance is
``Sigma = R diag(lambda) R^T``.

Genes are immutable and shared: cloning a genotype copies the list and the fitness, not
the arrays. Each gene has a content key (a hash of its arrays' bytes) that is stable
across processes and pickling, used by the evaluation caches.

The `Layout` holds what is fixed for a whole run: N, K, D, the cluster sizes and, for
each cluster slot k, fixed standard-normal draws ``z_k`` (n_k x D) (common random
numbers). The points of slot k are ``mu_k + z_k diag(sqrt(lambda_k)) R_k^T``, so a
genotype determines its dataset exactly.

The fitness classes are module-level, never made by ``deap.creator``: `RecordFitness`
keeps each evaluation's record (an `Evaluation`'s) beside DEAP's values; the problems'
`IndexFitness`, `VersusFitness`, `MultiObjectiveFitness` and yours derive from it.
"""

from __future__ import annotations

import copy
import hashlib
import math
import numbers
import sys
from collections.abc import Iterable, Sequence
from functools import cache
from operator import mul, truediv
from typing import Any

import numpy as np
from deap import base

from hawks_deap._util.validation import check_int
from hawks_deap.genome.products import rotation_product, shape_points

__all__ = [
    "Cluster", "Evaluation", "Genotype", "Layout", "IndexFitness", "VersusFitness",
    "RecordFitness", "MultiObjectiveFitness", "clone", "genotype_equal",
]


def _frozen(array: Any, shape: tuple[int, ...], name: str) -> np.ndarray:
    out = np.array(array, dtype=np.float64, copy=True)
    if out.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {out.shape}")
    if not np.isfinite(out).all():
        raise ValueError(f"{name} must be finite")
    out.setflags(write=False)
    return out


def _checked_shape(variances: Any, rotation: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    """A gene's variances (finite, > 0) and rotation (finite), as frozen copies."""
    variances_arr = _frozen(variances, (d,), "variances")
    if variances_arr.min() <= 0:  # (finite: the test of any value <= 0, cheaper)
        raise ValueError(f"variances must be > 0, got min {variances_arr.min():g}")
    return variances_arr, _frozen(rotation, (d, d), "rotation")


class Cluster:
    """An immutable Gaussian cluster gene.

    Parameters
    ----------
    mean : array of shape (D,)
        The cluster mean ``mu``.
    variances : array of shape (D,)
        The axis-aligned variances ``lambda`` (eigenvalues of the covariance), > 0.
    rotation : array of shape (D, D)
        A proper rotation ``R`` (orthogonal, determinant +1).

    Notes
    -----
    The covariance is ``R diag(variances) R^T``. Genes are never modified: the
    variation operators build new ones with `with_mean` and `with_shape`.
    """

    __slots__ = ("mean", "variances", "rotation", "_key", "_shape_key")

    mean: np.ndarray
    variances: np.ndarray
    rotation: np.ndarray
    _key: str | None
    _shape_key: str | None

    def __init__(self, mean: Any, variances: Any, rotation: Any) -> None:
        mean_arr = np.asarray(mean, dtype=np.float64)
        if mean_arr.ndim != 1 or mean_arr.size == 0:
            raise ValueError(f"mean must be a non-empty 1-D array, got shape {mean_arr.shape}")
        d = mean_arr.shape[0]
        object.__setattr__(self, "mean", _frozen(mean_arr, (d,), "mean"))
        variances_arr, rotation_arr = _checked_shape(variances, rotation, d)
        object.__setattr__(self, "variances", variances_arr)
        object.__setattr__(self, "rotation", rotation_arr)
        object.__setattr__(self, "_key", None)
        object.__setattr__(self, "_shape_key", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Cluster genes are immutable; use with_mean / with_shape")

    @classmethod
    def _trusted(cls, mean: np.ndarray, variances: np.ndarray, rotation: np.ndarray,
                 key: str | None, shape_key: str | None) -> Cluster:
        """A gene from valid arrays and their keys (None: computed when first asked).

        No checks and no hashing: for arrays already checked (`with_mean`) and genes
        sent between this package's processes.
        """
        new = cls.__new__(cls)
        for name, value in (("mean", mean), ("variances", variances), ("rotation", rotation)):
            value.setflags(write=False)
            object.__setattr__(new, name, value)
        object.__setattr__(new, "_key", key)
        object.__setattr__(new, "_shape_key", shape_key)
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        # one buffer and the keys already computed: a pool's worker rebuilds a genotype's
        # genes without the checks, the three array pickles and the hashing of `Cluster`,
        # which took most of a task's transport (BENCHMARKS.md, "A pool's messages")
        d = self.n_dims
        buffer = np.concatenate([self.mean, self.variances, self.rotation.reshape(d * d)])
        return (_rebuild_cluster, (buffer.astype("<f8", copy=False).tobytes(), d,
                                   self._key, self._shape_key))

    def __repr__(self) -> str:
        return f"Cluster(D={self.n_dims}, key={self.key[:12]})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Cluster):
            return NotImplemented
        return self is other or self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def n_dims(self) -> int:
        """Dimension D of the gene."""
        return self.mean.shape[0]

    @property
    def key(self) -> str:
        """Content key, stable across processes.

        A BLAKE2b digest of the mean's bytes and of the `shape_key`: genes with equal
        arrays have equal keys.
        """
        key = self._key
        if key is None:
            h = hashlib.blake2b(digest_size=16)
            h.update(np.ascontiguousarray(self.mean).tobytes())
            h.update(self.shape_key.encode())
            key = h.hexdigest()
            object.__setattr__(self, "_key", key)
        return key

    @property
    def shape_key(self) -> str:
        """Key of the shape alone (variances and rotation): points minus the mean.

        Cached and shared by `with_mean`, so moving a mean never re-hashes the rotation.
        """
        key = self._shape_key
        if key is None:
            h = hashlib.blake2b(digest_size=16)
            for arr in (self.variances, self.rotation):
                h.update(np.ascontiguousarray(arr).tobytes())
            key = h.hexdigest()
            object.__setattr__(self, "_shape_key", key)
        return key

    @property
    def covariance(self) -> np.ndarray:
        """The covariance matrix ``R diag(variances) R^T`` (a new array)."""
        r = self.rotation
        cov = rotation_product(r * self.variances, r.T)  # (2-D: no BLAS, the same bits)
        return (cov + cov.T) / 2.0

    @property
    def eccentricity(self) -> float:
        """Eigenvalue ratio ``lambda_max / lambda_min`` (HAWKS paper, Eq. 6 per cluster)."""
        return float(self.variances.max() / self.variances.min())

    def with_mean(self, mean: Any) -> Cluster:
        """Return a gene with a new mean and this gene's shape.

        Parameters
        ----------
        mean : array-like of shape (D,)
            The new mean, finite (ValueError otherwise); copied.

        Returns
        -------
        Cluster
            A new gene; this one is unchanged.
        """
        return Cluster._trusted(_frozen(mean, (self.n_dims,), "mean"), self.variances,
                                self.rotation, None, self._shape_key)

    def with_mean_of(self, other: Cluster) -> Cluster:
        """Return a gene with ``other``'s mean and this gene's shape (crossover's swap).

        As ``self.with_mean(other.mean)``, without copying or checking the mean again:
        both genes are immutable, so the new gene shares their arrays.

        Parameters
        ----------
        other : Cluster
            A gene (TypeError otherwise) of the same dimension (ValueError otherwise).

        Returns
        -------
        Cluster
            A new gene; both are unchanged.
        """
        if not isinstance(other, Cluster):
            raise TypeError(f"other must be a Cluster, got {type(other).__name__}")
        if other.n_dims != self.n_dims:
            raise ValueError(f"other must be a gene of dimension {self.n_dims}, got one of "
                             f"dimension {other.n_dims}")
        return Cluster._trusted(other.mean, self.variances, self.rotation, None,
                                self._shape_key)

    def with_shape(self, variances: Any, rotation: Any) -> Cluster:
        """Return a gene with this gene's mean and a new shape (variances, rotation).

        Parameters
        ----------
        variances : array-like of shape (D,)
            The new axis variances, finite and > 0.
        rotation : array-like of shape (D, D)
            The new rotation, finite (that it is a proper rotation is not checked).

        Returns
        -------
        Cluster
            A new gene (ValueError for a wrong shape or value); this one is unchanged.
        """
        variances_arr, rotation_arr = _checked_shape(variances, rotation, self.n_dims)
        return Cluster._trusted(self.mean, variances_arr, rotation_arr, None, None)

    def sample(self, z: np.ndarray) -> np.ndarray:
        """Points ``mean + z diag(sqrt(variances)) R^T`` for standard-normal rows ``z``.

        Parameters
        ----------
        z : numpy.ndarray of shape (n, D)
            Standard-normal draws, one row per point (a `Layout`'s ``z[k]``).

        Returns
        -------
        numpy.ndarray of shape (n, D)
        """
        return self.mean + shape_points(z, self.variances, self.rotation)

    def to_dict(self) -> dict[str, list]:
        """A JSON-ready description: mean, variances, rotation and covariance."""
        return {
            "mean": self.mean.tolist(),
            "variances": self.variances.tolist(),
            "rotation": self.rotation.tolist(),
            "covariance": self.covariance.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cluster:
        """Rebuild a gene written by `to_dict`.

        Parameters
        ----------
        data : mapping
            With keys ``"mean"``, ``"variances"`` and ``"rotation"``, checked as by
            `Cluster`; other keys (``"covariance"``) are ignored.

        Returns
        -------
        Cluster
        """
        return cls(data["mean"], data["variances"], data["rotation"])


class Evaluation(tuple):
    """Fitness values that also carry the evaluation record.

    A problem's ``evaluate`` returns an ``Evaluation``: a plain tuple of fitness values
    for DEAP (``ind.fitness.values = evaluation`` works with any DEAP algorithm and any
    ``map``), whose ``record`` (index value, constraint values, penalty, ...) is kept by
    `RecordFitness` when assigned, with ``layout_key``, the `Layout.key` of the layout the
    values were measured on (None when unknown), and ``weights``, the directions the
    problem means (its ``fitness_class``'s; None when unknown): a fitness whose weights
    point the other way refuses the values (a ``creator`` class copied from Index mode
    would minimise a Versus gap, silently); a weight of 0 (DEAP: ignored) opposes none.
    """

    record: dict[str, Any]
    layout_key: str | None
    weights: tuple[float, ...] | None

    def __new__(cls, values: Iterable[float], record: dict[str, Any] | None = None,
                layout_key: str | None = None,
                weights: Sequence[float] | None = None) -> Evaluation:
        """Build from fitness values, a record, the layout's key and the weights meant."""
        obj = super().__new__(cls, (float(v) for v in values))
        obj.record = dict(record or {})
        obj.layout_key = layout_key
        obj.weights = None if weights is None else tuple(weights)
        return obj

    def __getnewargs__(self) -> tuple[Any, ...]:
        return (tuple(self), self.record, self.layout_key, self.weights)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Evaluation, (tuple(self), self.record, self.layout_key, self.weights))


class RecordFitness(base.Fitness):
    """A DEAP fitness that keeps the evaluation record next to its values.

    Assigning an `Evaluation` to ``values`` stores its ``record``; deleting the values
    clears it, but keeps it as ``last_record``: DEAP's ``varAnd`` deletes a child's
    fitness right after crossover, and PSO-informed mutation then reads the index value
    the child had before (as in the HAWKS loop, where a child is mutated with the record
    of the parent it was cloned from). Copies (``copy.deepcopy``, which DEAP's
    ``toolbox.clone`` uses) keep both, unlike ``deap.base.Fitness``, whose
    ``__deepcopy__`` copies only ``wvalues``. Subclasses set ``weights`` at class level,
    so they pickle by name under spawn, fork and forkserver.

    Parameters
    ----------
    values : sequence of float, optional
        Initial values, one per weight (default empty: an invalid fitness); an
        `Evaluation` also sets ``record`` and ``layout_key``. This class has no
        ``weights``: instantiate a subclass (`IndexFitness`, `VersusFitness`,
        `MultiObjectiveFitness`, a ``deap.creator`` one); DEAP raises TypeError here.
    """

    record: dict[str, Any]
    last_record: dict[str, Any]
    #: `Layout.key` of the layout the values were measured on (None: unknown).
    layout_key: str | None

    def __init__(self, values: Sequence[float] = ()) -> None:
        self.record = {}
        self.last_record = {}
        self.layout_key = None
        super().__init__(values)

    def _get(self) -> tuple[float, ...]:
        # DEAP's own: an invalid fitness (no wvalues) has the values ()
        return tuple(map(truediv, self.wvalues, self.weights))

    def _set(self, values: Sequence[float]) -> None:
        if not hasattr(values, "__len__") or isinstance(values, (str, bytes)):
            raise TypeError(
                f"fitness values must be a sequence of {len(self.weights)} number(s), as "
                f"DEAP's evaluate returns them (e.g. (value,)), got {values!r}"
            )
        if len(values) != len(self.weights):
            raise ValueError(
                f"fitness needs {len(self.weights)} values (weights {self.weights}), "
                f"got {len(values)}"
            )
        meant = getattr(values, "weights", None)
        if meant is not None and any(w * m < 0 for w, m in zip(self.weights, meant,
                                                                strict=False)):
            raise ValueError(
                f"{type(self).__name__} has weights {tuple(self.weights)}, but the problem "
                f"that evaluated these values means {tuple(meant)} (negative: minimised, "
                "positive: maximised): the run would optimise the other way. Use the "
                "problem's fitness_class, or creator.create(..., weights="
                f"{tuple(meant)})")
        self.wvalues = tuple(map(mul, (float(v) for v in values), self.weights))
        record = getattr(values, "record", None)
        self.record = dict(record) if record is not None else {}
        self.last_record = self.record
        self.layout_key = getattr(values, "layout_key", None)

    def _del(self) -> None:
        self.wvalues = ()
        if self.record:
            self.last_record = self.record
        self.record = {}

    values = property(_get, _set, _del, "Fitness values (divided back by the weights).")

    def __deepcopy__(self, memo: dict) -> RecordFitness:
        copy_ = self.__class__.__new__(self.__class__)
        copy_.__dict__.update(self.__dict__)
        copy_.record = dict(self.record)
        copy_.last_record = dict(getattr(self, "last_record", {}))
        return copy_

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_fitness, (self.__class__, self.__dict__))


def _rebuild_fitness(cls: type[RecordFitness], state: dict) -> RecordFitness:
    fit = cls.__new__(cls)
    fit.__dict__.update(state)
    fit.record = dict(fit.__dict__.get("record", {}))
    return fit


class IndexFitness(RecordFitness):
    """Index mode: minimise ``|target - index|`` (HAWKS paper, Eq. 3)."""

    weights = (-1.0,)


class VersusFitness(RecordFitness):
    """Versus mode: maximise ``score(winner) - score(loser)`` (HAWKS paper, Eq. 4)."""

    weights = (1.0,)


class MultiObjectiveFitness(RecordFitness):
    """A fitness whose weights are chosen per instance or per subclass (multi-objective forms).

    Parameters
    ----------
    values : sequence of float
        Initial values (empty: invalid).
    weights : sequence of float, optional
        One weight per objective: negative to minimise, positive to maximise. Default:
        the class's (see `with_weights`).

    Notes
    -----
    The weights travel with the instance through copies and pickling: an instance of a
    class made by `with_weights` unpickles as this module-level class, one of a class
    pickle finds by name (e.g. made with ``deap.creator``) as that class; nothing is
    created with ``deap.creator`` here.
    """

    weights: tuple[float, ...] = ()

    def __init__(self, values: Sequence[float] = (), weights: Sequence[float] = ()) -> None:
        self.weights = _check_weights(tuple(float(w) for w in weights) or type(self).weights)
        super().__init__(values)

    @classmethod
    def with_weights(cls, weights: Sequence[float]) -> type[MultiObjectiveFitness]:
        """The subclass whose instances have ``weights`` by default (one per tuple).

        What a problem declares as its ``fitness_class``: ``fitness_class()`` makes an
        invalid fitness with the problem's weights, as DEAP's ``creator`` classes do.

        Parameters
        ----------
        weights : sequence of float
            One finite weight per objective, at least one (ValueError otherwise).

        Returns
        -------
        type
            A subclass of `MultiObjectiveFitness`; equal weights give the same class.
        """
        return _weighted_fitness(_check_weights(tuple(float(w) for w in weights)))

    def __reduce__(self) -> tuple[Any, ...]:
        # a class pickle finds by name (this one, a deap.creator subclass) stays itself;
        # a `with_weights` class is made at run time, and its weights are in the state
        cls = type(self)
        module = sys.modules.get(cls.__module__)
        named = getattr(module, cls.__qualname__, None) is cls
        return (_rebuild_fitness, (cls if named else MultiObjectiveFitness, self.__dict__))


def _check_weights(weights: tuple[float, ...]) -> tuple[float, ...]:
    if not weights or not all(math.isfinite(w) for w in weights):
        raise ValueError(f"weights must be one finite number per objective, got {weights}")
    return weights


def _rebuild_cluster(buffer: bytes, d: int, key: str | None,
                     shape_key: str | None) -> Cluster:
    """A pickled `Cluster`: mean, variances and rotation in one little-endian buffer.

    The keys are those the gene had when pickled (None: computed when first asked); the
    arrays are read-only views of the buffer, native float64.
    """
    values = np.frombuffer(buffer, dtype="<f8")
    if not values.dtype.isnative:
        values = values.astype(np.float64)
    return Cluster._trusted(values[:d], values[d:2 * d], values[2 * d:].reshape(d, d),
                            key, shape_key)


@cache
def _weighted_fitness(weights: tuple[float, ...]) -> type[MultiObjectiveFitness]:
    return type("MultiObjectiveFitness", (MultiObjectiveFitness,),
                {"weights": weights, "__module__": __name__,
                 "__doc__": f"`MultiObjectiveFitness` with weights {weights}."})


class Genotype(list):
    """A DEAP individual: a list of `Cluster` genes with a ``fitness``.

    Parameters
    ----------
    genes : iterable of Cluster
        One gene per cluster slot.
    fitness : RecordFitness, optional
        The fitness object (``IndexFitness()`` if omitted).

    Notes
    -----
    ``copy.deepcopy`` (and DEAP's default ``toolbox.clone``) and `clone` copy the list
    and the fitness but share the genes: genes are immutable, so no array is copied.
    """

    fitness: RecordFitness

    def __init__(self, genes: Iterable[Cluster] = (), fitness: RecordFitness | None = None):
        super().__init__(genes)
        if fitness is not None:
            self.fitness = fitness
        elif "fitness" not in self.__dict__:  # deap.creator sets a declared one first
            self.fitness = IndexFitness()

    @property
    def record(self) -> dict[str, Any]:
        """The evaluation record (index value, constraints, penalty, ...); {} if invalid."""
        return self.fitness.record

    def clone(self) -> Genotype:
        """A copy sharing the genes, with a deep copy of everything else.

        Genes are immutable, so sharing them is safe and cheap; the fitness (with its
        record) and the other attributes of this individual (e.g. those a
        ``deap.creator`` subclass declares, such as a history list) are deep-copied, as
        ``copy.deepcopy`` of a DEAP individual would.
        """
        return self.__deepcopy__({})

    def __deepcopy__(self, memo: dict) -> Genotype:
        cls = type(self)
        copy_ = cls.__new__(cls)
        memo[id(self)] = copy_
        list.extend(copy_, self)
        copy_.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return copy_

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_genotype, (type(self), list(self), self.__dict__))

    @property
    def key(self) -> str:
        """Content key of the whole genotype (its genes' keys in slot order)."""
        h = hashlib.blake2b(digest_size=16)
        for gene in self:
            h.update(gene.key.encode())
        return h.hexdigest()

    @property
    def means(self) -> np.ndarray:
        """Means of all genes, shape (K, D)."""
        return np.stack([g.mean for g in self])


def _rebuild_genotype(cls: type[Genotype], genes: list, state: dict) -> Genotype:
    individual = cls.__new__(cls)
    list.extend(individual, genes)
    individual.__dict__.update(state)
    return individual


def clone(individual: Genotype) -> Genotype:
    """Clone an individual cheaply (genes shared); for ``toolbox.register("clone", ...)``.

    Parameters
    ----------
    individual : Genotype
        The individual to copy (TypeError for anything else); not changed.

    Returns
    -------
    Genotype
        `Genotype.clone`'s copy: a new list of the same genes, the rest deep-copied.
    """
    if not isinstance(individual, Genotype):
        raise TypeError(f"individual must be a hawks_deap Genotype, got "
                        f"{type(individual).__name__}")
    return individual.clone()


def genotype_equal(a: Genotype, b: Genotype) -> bool:
    """True when two genotypes have the same genes in the same slots.

    The ``similar`` of `hawks_deap.algorithms.FeasibleHallOfFame` and of the pareto
    fronts `hawks_deap.evolve` keeps. DEAP's default, ``operator.eq``, gives the same
    answer on genotypes (genes compare by key, `Cluster.__eq__`); this one says so
    without list comparison and accepts any sequences of genes.

    Parameters
    ----------
    a, b : Genotype
        The individuals (any sequences of `Cluster`); fitness is not compared.

    Returns
    -------
    bool
    """
    return len(a) == len(b) and all(x.key == y.key for x, y in zip(a, b, strict=True))


class Layout:
    """What stays fixed during a run: sizes and the common random numbers.

    Parameters
    ----------
    sizes : sequence of int
        Cluster sizes n_1..n_K (each >= 1; they sum to N).
    n_dims : int
        Dimension D.
    z : list of arrays, optional
        Standard-normal draws, one (n_k, D) array per slot. Drawn from ``rng`` if omitted.
    rng : numpy.random.Generator, optional
        Source of the draws when ``z`` is omitted.
    """

    def __init__(self, sizes: Sequence[int] | np.ndarray, n_dims: int,
                 z: Sequence[np.ndarray] | None = None,
                 rng: np.random.Generator | None = None) -> None:
        given = np.asarray(sizes)
        integral = given.dtype.kind in "iu" or (given.ndim == 1 and all(
            isinstance(n, numbers.Integral) and not isinstance(n, bool | np.bool_)
            for n in sizes))  # e.g. [np.uint64(5), 5], which numpy makes floats
        if given.ndim != 1 or given.size == 0 or not integral:
            raise TypeError(f"sizes must be a non-empty sequence of integers, got {sizes!r}")
        if given.min() < 1:  # an empty slot has no centroid (its z mean would be NaN)
            raise ValueError(f"sizes must be >= 1, got {given.tolist()}")
        self.sizes = given.astype(np.int64)
        self.sizes.setflags(write=False)
        self.n_dims = check_int("n_dims", n_dims, minimum=1)
        if z is None:
            if rng is None:
                raise ValueError("Layout needs either z or rng")
            if not hasattr(rng, "standard_normal"):
                raise TypeError(f"rng must be a numpy.random.Generator, got {rng!r}")
            z = [rng.standard_normal((int(n), self.n_dims)) for n in self.sizes]
        self.z = [np.array(zk, dtype=np.float64) for zk in z]
        for k, zk in enumerate(self.z):
            if zk.shape != (int(self.sizes[k]), self.n_dims):
                raise ValueError(f"z[{k}] must have shape {(int(self.sizes[k]), self.n_dims)}, "
                                 f"got {zk.shape}")
            zk.setflags(write=False)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)])
        self.labels = np.repeat(np.arange(self.n_clusters), self.sizes)
        self.labels.setflags(write=False)
        self.z_means = np.stack([zk.mean(axis=0) for zk in self.z])
        self._centroid_offsets: dict[tuple[int, str], np.ndarray] = {}

    #: Entries of the per-(slot, shape) centroid-offset cache before it is cleared.
    OFFSET_CACHE_ENTRIES = 4096

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_centroid_offsets"] = {}  # a cache: not shipped to workers
        return state

    @property
    def key(self) -> str:
        """Content key of the layout (its sizes and draws), stable across processes."""
        key = self.__dict__.get("_key")
        if key is None:
            h = hashlib.blake2b(digest_size=16)
            h.update(np.asarray([self.n_dims, *self.sizes], dtype=np.int64).tobytes())
            for zk in self.z:
                h.update(zk.tobytes())
            key = self._key = h.hexdigest()
        return key

    @property
    def n_samples(self) -> int:
        """Total number of points N."""
        return int(self.offsets[-1])

    @property
    def n_clusters(self) -> int:
        """Number of clusters K."""
        return int(self.sizes.shape[0])

    def cluster_points(self, genotype: Sequence[Cluster], k: int) -> np.ndarray:
        """Points of slot ``k`` under the gene ``genotype[k]``, shape (n_k, D).

        Parameters
        ----------
        genotype : sequence of Cluster
            The genes (not checked against the layout: see `check`).
        k : int
            The slot, in [0, K - 1].

        Returns
        -------
        numpy.ndarray of shape (n_k, D)
        """
        return genotype[k].sample(self.z[k])

    def sample(self, genotype: Sequence[Cluster]) -> tuple[np.ndarray, np.ndarray]:
        """The dataset of a genotype: X (N, D) and labels y (N,), slot by slot.

        Parameters
        ----------
        genotype : sequence of Cluster
            K genes of dimension D (`check` raises ValueError otherwise).

        Returns
        -------
        X : numpy.ndarray of shape (N, D)
        y : numpy.ndarray of shape (N,)
            Slot indices 0..K-1 (a copy of ``labels``).
        """
        self.check(genotype)
        X = np.concatenate([self.cluster_points(genotype, k) for k in range(self.n_clusters)])
        return X, self.labels.copy()

    def data_mean(self, genotype: Sequence[Cluster]) -> np.ndarray:
        """Mean of all data points of a genotype, without sampling them.

        The centroid of slot k is ``mu_k + R_k (sqrt(lambda_k) * zbar_k)``; the offset
        ``R_k (sqrt(lambda_k) * zbar_k)`` depends only on the slot and the gene's shape and
        is cached by (slot, `Cluster.shape_key`), so moving a mean costs no matrix product.

        Parameters
        ----------
        genotype : sequence of Cluster
            K genes of dimension D (not checked: see `check`).

        Returns
        -------
        numpy.ndarray of shape (D,)
        """
        cache = self._centroid_offsets
        if len(cache) > self.OFFSET_CACHE_ENTRIES:
            cache.clear()
        offsets = []
        for k, gene in enumerate(genotype):
            key = (k, gene.shape_key)
            offset = cache.get(key)
            if offset is None:
                offset = shape_points(self.z_means[k], gene.variances, gene.rotation)
                cache[key] = offset
            offsets.append(offset)
        centroids = np.array([gene.mean for gene in genotype])
        centroids += offsets
        centroids *= self.sizes[:, None]
        # a reduction over rows: the same sequential sum, slot by slot, on every platform
        return np.add.reduce(centroids, axis=0) / self.n_samples

    def check(self, genotype: Sequence[Cluster]) -> None:
        """Raise ValueError if a genotype does not fit this layout.

        Parameters
        ----------
        genotype : sequence of Cluster
            Must hold K genes (`n_clusters`), each of dimension D (`n_dims`).
        """
        if len(genotype) != self.n_clusters:
            raise ValueError(f"genotype has {len(genotype)} genes, layout has "
                             f"{self.n_clusters} clusters")
        for gene in genotype:
            if gene.n_dims != self.n_dims:
                raise ValueError(f"gene has D={gene.n_dims}, layout has D={self.n_dims}")
