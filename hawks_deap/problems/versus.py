"""Versus mode: evolve datasets on which one clustering algorithm beats another.

HAWKS paper, section III-C2, Eq. (4): maximise ``phi(A_w) - phi(A_l)``, the gap between
the scores of a "winning" algorithm ``A_w`` and a "losing" algorithm ``A_l``, each given
the true number of clusters K and scored against the known labels with an external
index ``phi`` (the paper uses the adjusted Rand index).

Seeds. Stochastic algorithms (GMM, K-Means++) get a fresh seed at every evaluation; with
a fixed seed the evolution exploits the fixed initial centroids (the paper's footnote to
section V-B). The seed comes from the ``eval_seed`` that `hawks_deap.evolve` derives from
(run seed, generation, position in the offspring), so results do not depend on the
number of workers or on scheduling. The winner and the loser get two independent seeds
spawned from it (with one shared seed, GMM's k-means initialisation and K-Means++ would
start from the very same centroids). When ``evaluate`` is called without a seed (e.g. by
a DEAP algorithm through ``toolbox.evaluate(individual)``), the seed is derived from the
genotype's content key: the same genotype always gets the same seed, a changed one gets
a new seed.

Threads. Each clustering call runs with at most ``n_threads`` BLAS/OpenMP threads
(default 1, through ``threadpoolctl``): more threads oversubscribe the cores when
several workers run, do not pay at the sizes HAWKS evolves (BENCHMARKS.md, "Thread
caps"), and make scikit-learn's parallel reductions (K-Means) depend on the thread
count, which would break the identity of results across ``n_jobs``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from hawks_deap import metrics
from hawks_deap._util.threads import check_threads, thread_cap
from hawks_deap._util.validation import check_int, seed_words
from hawks_deap.clustering import (
    AlgorithmSpec,
    ClusteringAlgorithm,
    algorithm_identity,
    available_algorithms,
    get_algorithm,
)
from hawks_deap.genome.genotype import Evaluation, Genotype, MultiObjectiveFitness, VersusFitness
from hawks_deap.metrics import adjusted_rand_index
from hawks_deap.problems.base import DatasetProblem
from hawks_deap.problems.constraints import Constraint

__all__ = ["MultiVersusProblem", "VersusProblem", "adjusted_rand_index"]

ScoreFunction = Callable[[np.ndarray, np.ndarray], float]
"""``score(labels_true, labels_pred) -> float``, an external validity index."""


# --------------------------------------------------------------------------- scores


def _external_names() -> list[str]:
    """``"ari"`` and the external indices of the metrics registry."""
    return ["ari", *(n for n in metrics.available(kind="external") if n != "ari")]


def resolve_score(score: str | ScoreFunction) -> tuple[str, ScoreFunction, bool]:
    """Turn a score specification into ``(name, function, higher_is_better)``.

    Parameters
    ----------
    score : str or callable
        ``"ari"`` (`adjusted_rand_index`, equal to scikit-learn's
        ``adjusted_rand_score``); the name (or alias) of any external index of
        ``hawks_deap.metrics``; or a callable ``(labels_true, labels_pred) -> float``,
        taken as higher-is-better.

    Returns
    -------
    tuple
        The score's name, its function and whether higher values are better.

    Raises
    ------
    ValueError
        For an unknown name or an internal index, listing the valid names.
    TypeError
        For anything that is neither a string nor a callable.
    """
    if callable(score) and not isinstance(score, str):
        name = getattr(score, "__qualname__", None) or type(score).__name__
        return name, score, True
    if not isinstance(score, str):
        raise TypeError(f"score must be a name or a callable (labels_true, labels_pred) -> "
                        f"float, got {score!r} ({type(score).__name__})")
    if score.lower() in ("ari", "adjusted_rand", "adjusted_rand_score", "adjusted-rand"):
        return "ari", adjusted_rand_index, True
    try:
        info = metrics.get(score)
    except (KeyError, ValueError) as error:
        valid = ", ".join(repr(n) for n in _external_names())
        raise ValueError(f"unknown score {score!r}; valid: {valid}") from error
    if info.kind != "external":
        valid = ", ".join(repr(n) for n in _external_names())
        raise ValueError(f"score {score!r} is an {info.kind} index; Versus mode scores "
                         f"partitions against the true labels and needs an external index: "
                         f"{valid}")
    return info.name, info.function, bool(info.higher_is_better)


def _algorithm(role: str, spec: AlgorithmSpec) -> ClusteringAlgorithm:
    if isinstance(spec, str):
        try:
            return get_algorithm(spec)
        except ValueError as error:  # named as the parameter it came from
            raise ValueError(f"{role}: {error}") from None
    return get_algorithm(spec)


def _identity(algorithm: ClusteringAlgorithm) -> dict[str, Any]:
    """Where an algorithm comes from and its library's version (its settings are beside)."""
    identity = algorithm_identity(algorithm)
    return {k: identity[k] for k in ("source", "spec", "module", "version")}


def role_seeds(eval_seed: int) -> tuple[int, int]:
    """The winner's and the loser's seeds of one evaluation, spawned from ``eval_seed``.

    ``SeedSequence(eval_seed).generate_state(2)``: two independent 32-bit seeds.
    """
    winner_seed, loser_seed = seed_words(eval_seed, 2)
    return winner_seed, loser_seed


# --------------------------------------------------------------------------- problem


class VersusProblem(DatasetProblem):
    """Maximise ``phi(A_w) - phi(A_l)``, the score gap of two clustering algorithms (Eq. 4).

    Parameters
    ----------
    winner, loser : str, ClusteringAlgorithm, estimator or callable
        The algorithm to favour and the one to defeat: a name of
        `hawks_deap.clustering.available_algorithms` (``"kmeans++"``, ``"gmm"``,
        ``"average-linkage"``, ``"single-linkage"``, ``"average-linkage-2k"``,
        ``"single-linkage-2k"``) or anything `hawks_deap.clustering.get_algorithm`
        accepts. They must differ.
    n_samples, n_clusters, n_dims : int
        Dataset size N, number of clusters K (>= 2) and dimension D (>= 1); the paper's
        Versus experiments use N = 2000, K = 5, D = 2.
    score : str or callable
        ``phi``: ``"ari"`` (the paper's), any external index of ``hawks_deap.metrics``
        by name, or a callable ``(labels_true, labels_pred) -> float`` (higher is
        better). For an index where lower is better the fitness is
        ``phi(A_l) - phi(A_w)``, so it is always maximised.
    constraints : iterable of Constraint
        E.g. ``[Overlap(max=0.1)]`` (the paper discourages fully overlapping clusters).
    equal_sizes, min_size, initial_cov_upper
        See `hawks_deap.problems.base.DatasetProblem`.
    initial_mean_upper : float
        Upper bound of the uniform initial means; 10 in the paper's Versus experiments
        (the default here), so that clusters start apart.
    n_threads : int or None
        BLAS/OpenMP threads per clustering call (default 1; None leaves the libraries'
        own settings, and then results may depend on the thread count).
    cache_bytes : int
        Memory budget of the evaluator's point cache (default 512 MiB).

    Notes
    -----
    The evaluation record holds ``"winner_score"`` and ``"loser_score"``, one entry per
    constraint (``"overlap"``, ...), ``"penalty"``, ``"feasible"`` and ``"seeds"`` (the
    winner's and loser's seeds of that evaluation, which `partitions` reuses to repeat
    it). A clustering algorithm that fails or returns labels of the wrong length raises
    ``RuntimeError`` naming it; so does a score that is not a finite number.

    Examples
    --------
    >>> import numpy as np
    >>> from hawks_deap.problems.constraints import Overlap
    >>> problem = VersusProblem("gmm", "single-linkage", n_samples=200, n_clusters=3,
    ...                         n_dims=2, constraints=[Overlap(max=0.1)])
    >>> _ = problem.prepare(np.random.default_rng(0))
    >>> individual = problem.random_individual(np.random.default_rng(1))
    >>> evaluation = problem.evaluate(individual, eval_seed=7)
    >>> sorted(evaluation.record)
    ['feasible', 'loser_score', 'overlap', 'penalty', 'seeds', 'winner_score']
    >>> bool(evaluation[0] == evaluation.record["winner_score"]
    ...      - evaluation.record["loser_score"])
    True
    """

    fitness_class = VersusFitness

    #: Evaluations are expensive (two clustering runs): `hawks_deap.evolve` may default to
    #: a process pool for this problem. Results never depend on it.
    parallel_by_default: bool = True

    def __init__(self, winner: AlgorithmSpec, loser: AlgorithmSpec, *, n_samples: int,
                 n_clusters: int, n_dims: int, score: str | ScoreFunction = "ari",
                 constraints: Iterable[Constraint] = (), equal_sizes: bool = False,
                 min_size: int = 10, initial_mean_upper: float = 10.0,
                 initial_cov_upper: float = 0.5, n_threads: int | None = 1,
                 cache_bytes: int = 512 * 2**20) -> None:
        self.winner = _algorithm("winner", winner)
        self.loser = _algorithm("loser", loser)
        # the same code and settings under two names (an import path's spellings) too
        if self.winner == self.loser or (self.winner.func == self.loser.func and
                                         self.winner.k_multiplier == self.loser.k_multiplier):
            names = (f"{self.winner.name!r} twice" if self.winner.name == self.loser.name
                     else f"{self.winner.name!r} and {self.loser.name!r}, the same code and "
                          "settings")
            raise ValueError(f"winner and loser must be different algorithms, got {names} (a "
                             "gap between an algorithm and itself is its seed's noise)")
        self.score_name, self.score, self.higher_is_better = resolve_score(score)
        self.n_threads = check_threads("n_threads", n_threads)
        super().__init__(n_samples=n_samples, n_clusters=n_clusters, n_dims=n_dims,
                         constraints=constraints, equal_sizes=equal_sizes, min_size=min_size,
                         initial_mean_upper=initial_mean_upper,
                         initial_cov_upper=initial_cov_upper, cache_bytes=cache_bytes)
        self._check_sizes([("winner", self.winner), ("loser", self.loser)])

    def _check_sizes(self, roles: Iterable[tuple[str, ClusteringAlgorithm]]) -> None:
        """Refuse, before any run, an algorithm that cannot cluster ``n_samples`` points.

        It asks for more clusters than points, or (a `pairwise` one) its distances need
        more than this machine's memory. Sets ``evaluation_bytes``: the algorithms of
        an evaluation run one after the other, so the largest need of any of them.
        """
        for role, algorithm in roles:
            self.evaluation_bytes = max(self.evaluation_bytes,
                                        algorithm.memory_bytes(self.n_samples))
            k = self.n_clusters * algorithm.k_multiplier
            if k > self.n_samples:
                raise ValueError(f"{role} {algorithm.name!r} asks for {k} clusters, more than "
                                 f"n_samples = {self.n_samples}")
            algorithm.check_memory(self.n_samples, {"n_samples": self.n_samples},
                                   label=f"{role} {algorithm.name!r}")
            # a nearest-neighbour graph (spectral clustering's) needs that many points
            neighbours = algorithm.settings.get("n_neighbors")
            if isinstance(neighbours, int) and self.n_samples < neighbours:
                raise ValueError(f"{role} {algorithm.name!r} needs n_samples >= n_neighbors "
                                 f"= {neighbours}, got n_samples = {self.n_samples}")

    def loop_context(self) -> contextlib.AbstractContextManager:
        """BLAS and OpenMP at ``n_threads`` (None: the libraries' own setting).

        Held around every clustering call and, once, around a serial loop; re-entrant,
        so the calls inside the loop cost nothing.
        """
        return thread_cap(self.n_threads)

    @staticmethod
    def genotype_seed(individual: Genotype) -> int:
        """Evaluation seed used when none is given: ``int(individual.key, 16)``.

        Parameters
        ----------
        individual : Genotype
            The individual (its content key, `Genotype.key`, a 128-bit hex digest).

        Returns
        -------
        int
            The same for genotypes with equal genes, in any process.
        """
        return int(individual.key, 16)

    def partitions(self, individual: Genotype, seeds: tuple[int, int] | None = None,
                   ) -> tuple[np.ndarray, np.ndarray]:
        """The winner's and the loser's labels on an individual's dataset.

        Parameters
        ----------
        individual : Genotype
            A genotype of this problem (current layout).
        seeds : (int, int), optional
            The winner's and loser's seeds; by default those of the individual's last
            evaluation (``individual.record["seeds"]``), so the partitions are exactly
            the scored ones, or else those of `genotype_seed`.

        Returns
        -------
        tuple of ndarray
            Winner labels and loser labels, each of shape (N,).
        """
        self.require_layout()
        assert self.evaluator is not None  # made with the layout
        if seeds is None:
            recorded = individual.record.get("seeds") if individual.fitness.valid else None
            if recorded is not None:
                seeds = self._recorded_seeds(recorded)
            else:
                seeds = role_seeds(self.genotype_seed(individual))
        X = self.evaluator.points(individual)
        trees: dict[Any, Any] = {}  # a linkage and its 2K variant build one tree
        with self.loop_context():
            return (self.winner(X, self.n_clusters, seeds[0], trees=trees),
                    self.loser(X, self.n_clusters, seeds[1], trees=trees))

    def _recorded_seeds(self, recorded: dict[str, int]) -> tuple[int, int]:
        """The winner's and loser's seeds in an evaluation's ``record["seeds"]``."""
        return recorded["winner"], recorded["loser"]

    def _score(self, labels_pred: np.ndarray, algorithm: ClusteringAlgorithm) -> float:
        returned = self.score(self.require_layout().labels, labels_pred)
        try:
            value = float(returned)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value):
            raise RuntimeError(f"score {self.score_name!r} returned {returned!r} for the "
                               f"partition of algorithm {algorithm.name!r}; it must be a "
                               "finite number")
        return value

    def evaluate(self, individual: Genotype, eval_seed: int | None = None) -> Evaluation:
        """``(phi(A_w) - phi(A_l),)`` with the record (scores, constraints, penalty).

        Parameters
        ----------
        individual : Genotype
            A genotype of this problem.
        eval_seed : int, optional
            Seed of this evaluation (`hawks_deap.evolve` derives it from the run seed,
            the generation and the position in the offspring); the winner's and loser's
            seeds are spawned from it (`role_seeds`). None: `genotype_seed`.

        Returns
        -------
        Evaluation
            The fitness tuple carrying the record.
        """
        seed = self._evaluation_seed(individual, eval_seed)
        everything = tuple(range(len(self._algorithms())))
        return self.join_parts(individual, seed,
                               [self._run_part(individual, seed, everything, True)])

    # -- an evaluation in parts (what a pool may spread over its workers)

    def _algorithms(self) -> tuple[ClusteringAlgorithm, ...]:
        """The evaluation's algorithms, in the order of their seeds (`seed_words`)."""
        return (self.winner, self.loser)

    def _evaluation_seed(self, individual: Genotype, eval_seed: int | None) -> int:
        if eval_seed is None:
            return self.genotype_seed(individual)
        return check_int("eval_seed", eval_seed, minimum=0)

    def _part_plan(self) -> list[tuple[tuple[int, ...], bool]]:
        """Each part's algorithms (by position) and whether it measures the constraints.

        One part per algorithm, the winner's first, except that algorithms cutting one
        tree (a linkage and its ``-2k`` variant) share a part, so that the tree is still
        built once; then the constraints, a part of their own (the overlap's nearest
        neighbours are about 6 % of a Versus evaluation: alone, they keep it off the
        slowest clustering's worker, BENCHMARKS.md). A problem without constraints
        records its empty ones in the first part.
        """
        groups: dict[Any, list[int]] = {}
        for i, algorithm in enumerate(self._algorithms()):
            source = algorithm.tree_source
            groups.setdefault(("own", i) if source is None else source, []).append(i)
        plan = [(tuple(indices), False) for indices in groups.values()]
        if self.constraints:
            return [*plan, ((), True)]
        return [(plan[0][0], True), *plan[1:]]

    def evaluation_parts(self) -> int:
        """Independent parts of one evaluation: one per clustering, and the constraints.

        A linkage and its ``-2k`` variant count as one, since they cut one tree; the
        constraints are a part of their own if the problem has any. A pool of several
        workers evaluates each individual's parts as separate tasks, every individual's
        part of the kind that took longest first (`ProblemPool`); `join_parts` of all of
        `evaluate_part`, in any order, gives what `evaluate` gives (BENCHMARKS.md,
        "Versus evaluations in parts").
        """
        return len(self._part_plan())

    def evaluate_part(self, individual: Genotype, eval_seed: int | None = None,
                      part: int = 0) -> dict[str, Any]:
        """The scores of part ``part``'s algorithms, or the constraints.

        Parameters
        ----------
        individual : Genotype
            A genotype of this problem (current layout).
        eval_seed : int, optional
            The evaluation's seed, as for `evaluate`.
        part : int
            In ``[0, evaluation_parts())``.

        Returns
        -------
        dict
            ``"scores"``: the score of each of the part's algorithms, by its position in
            the evaluation (winner 0, loser 1; `MultiVersusProblem`: the winner, the
            losers, then the others, in order), empty in the constraints' part;
            ``"constraints"`` (the constraints' part only: the last part, or the first if
            the problem has no constraints): the constraint record; ``"seed"``: the
            evaluation's seed. What `join_parts` takes.
        """
        plan = self._part_plan()
        part = check_int("part", part, minimum=0, maximum=len(plan) - 1)
        return self._run_part(individual, self._evaluation_seed(individual, eval_seed),
                              *plan[part])

    def _run_part(self, individual: Genotype, seed: int, indices: Sequence[int],
                  constraints: bool) -> dict[str, Any]:
        self.require_layout()
        assert self.evaluator is not None  # made with the layout
        X = self.evaluator.points(individual)
        part: dict[str, Any] = {"seed": seed, "scores": {}}
        if indices:  # (the constraints' part clusters nothing: no seeds, no thread limits)
            algorithms = self._algorithms()
            seeds = seed_words(seed, len(algorithms))
            # a linkage and its 2K variant (average-linkage against average-linkage-2k)
            # build one tree: each cut is exactly the labels of a call alone
            trees: dict[Any, Any] = {}
            with self.loop_context():
                labels = {i: algorithms[i](X, self.n_clusters, seeds[i], trees=trees)
                          for i in indices}
            part["scores"] = {i: self._score(labels[i], algorithms[i]) for i in indices}
        if constraints:
            # X is passed: one plain overlap pass on the data built for the clustering
            # calls (in Versus runs genes move a lot, and this beat the per-gene-pair
            # cache), the compiled grid pass in 2-D (BENCHMARKS.md, "The Versus
            # constraints through the grid pass")
            part["constraints"] = self.constraint_record(individual, X)
        return part

    def join_parts(self, individual: Genotype, eval_seed: int | None,
                   parts: Sequence[dict[str, Any]]) -> Evaluation:
        """The evaluation of ``individual`` from the results of all its parts.

        Parameters
        ----------
        individual : Genotype
            The genotype the parts evaluated.
        eval_seed : int or None
            The seed the parts were given.
        parts : sequence of dict
            `evaluate_part`'s results for every part, each once, in any order.

        Returns
        -------
        Evaluation
            What `evaluate` returns.

        Raises
        ------
        TypeError
            If a part is not a result of `evaluate_part`.
        ValueError
            If a part is missing or given twice, or was evaluated with another seed.
        """
        layout = self.require_layout()
        algorithms = self._algorithms()
        seed = self._evaluation_seed(individual, eval_seed)
        scores: dict[int, float] = {}
        constraints: dict[str, Any] | None = None
        for part in parts:
            if not (isinstance(part, dict) and isinstance(part.get("scores"), dict)):
                raise TypeError(f"parts must hold results of evaluate_part, got "
                                f"{type(part).__name__} {part!r:.80}")
            if part.get("seed") != seed:
                raise ValueError(f"parts must be evaluated with the seed given here, "
                                 f"{seed}; got a part of seed {part.get('seed')!r}")
            if scores.keys() & part["scores"].keys():
                raise ValueError(f"parts must hold each part once, got the scores of "
                                 f"algorithms {sorted(part['scores'])} twice")
            if "constraints" in part and constraints is not None:
                raise ValueError("parts must hold each part once, got the constraints twice")
            scores.update(part["scores"])
            constraints = part.get("constraints", constraints)
        if sorted(scores) != list(range(len(algorithms))) or constraints is None:
            raise ValueError(f"parts must hold the results of all {self.evaluation_parts()} "
                             f"parts of an evaluation, got the scores of algorithms "
                             f"{sorted(scores)} of {len(algorithms)}"
                             + ("" if constraints is not None else " and no constraints"))
        values, record = self._objectives([scores[i] for i in range(len(algorithms))])
        record.update(constraints)
        seeds = seed_words(seed, len(algorithms))
        record["seeds"] = self._seed_record(seeds)
        return Evaluation(values, record, layout.key, self.fitness_class.weights)

    def _objectives(self, scores: list[float]) -> tuple[list[float], dict[str, Any]]:
        """The fitness values and the record's scores from each algorithm's score."""
        winner_score, loser_score = scores
        gap = winner_score - loser_score if self.higher_is_better else loser_score - winner_score
        return [gap], {"winner_score": winner_score, "loser_score": loser_score}

    def _seed_record(self, seeds: list[int]) -> dict[str, int]:
        return {"winner": seeds[0], "loser": seeds[1]}

    def parameters(self) -> dict[str, Any]:
        """JSON-ready description of the problem."""
        return {
            "mode": "versus",
            "winner": self.winner.name,
            "loser": self.loser.name,
            "winner_k_multiplier": self.winner.k_multiplier,
            "loser_k_multiplier": self.loser.k_multiplier,
            "winner_settings": self.winner.settings,
            "loser_settings": self.loser.settings,
            "winner_identity": _identity(self.winner),
            "loser_identity": _identity(self.loser),
            "score": self.score_name,
            "higher_is_better": self.higher_is_better,
            "n_threads": self.n_threads,
            **self.dataset_parameters(),
        }

    def __repr__(self) -> str:
        return (f"VersusProblem(winner={self.winner.name!r}, loser={self.loser.name!r}, "
                f"n_samples={self.n_samples}, n_clusters={self.n_clusters}, "
                f"n_dims={self.n_dims}, score={self.score_name!r}, "
                f"constraints={list(self.constraints)})")


class MultiVersusProblem(VersusProblem):
    """Many-objective Versus mode, DIGEN-style: one winner against several algorithms.

    Objectives, all maximised (use ``evolve(..., algorithm="nsga2" | "nsga3")``):

    - one gap ``phi(A_w) - phi(A_l)`` per loser in ``losers``;
    - with ``others``: the spread (population standard deviation) of the scores of those
      algorithms, so that the dataset also separates them (DIGEN's diversity of the
      other algorithms' performance, ``seeds/002``).

    Parameters
    ----------
    winner : str, ClusteringAlgorithm, estimator or callable
        The algorithm to favour.
    losers : sequence of algorithm specs
        The algorithms to defeat (at least one).
    others : sequence of algorithm specs, optional
        Algorithms whose score spread is maximised (at least two when given).
    **kwargs
        As `VersusProblem` (``n_samples``, ``n_clusters``, ``n_dims``, ``score``,
        ``constraints``, ...).

    Notes
    -----
    The record holds ``"winner_score"``, ``"loser_score"`` (the first loser's, so Versus
    tools keep working), ``"score_<name>"`` for every algorithm, ``"spread"`` when
    ``others`` are given, the constraint values, ``"penalty"``, ``"feasible"`` and the
    per-algorithm ``"seeds"``. Each algorithm gets its own seed, spawned from the
    evaluation seed.
    """

    parallel_by_default: bool = True

    def __init__(self, winner: AlgorithmSpec, losers: Iterable[AlgorithmSpec], *,
                 others: Iterable[AlgorithmSpec] = (), **kwargs: Any) -> None:
        if isinstance(losers, str):
            losers = [losers]
        loser_list = [_algorithm("losers", spec) for spec in losers]
        other_list = [_algorithm("others", spec) for spec in others]
        if not loser_list:
            raise ValueError("losers must name at least one clustering algorithm; valid: "
                             + ", ".join(repr(n) for n in available_algorithms()))
        if len(other_list) == 1:
            raise ValueError("others must name at least two algorithms (their score spread "
                             f"is maximised), got {other_list[0].name!r} alone")
        super().__init__(winner, loser_list[0], **kwargs)
        self.losers = tuple(loser_list)
        self.others = tuple(other_list)
        algorithms = [self.winner, *self.losers, *self.others]
        names = [a.name for a in algorithms]
        for i, a in enumerate(algorithms):
            for b in algorithms[i + 1:]:
                if a == b or (a.func == b.func and a.k_multiplier == b.k_multiplier):
                    raise ValueError(f"winner, losers and others must all differ, got "
                                     f"{names} ({a.name!r} and {b.name!r}: the same code "
                                     "and settings)")
                if a.name == b.name:  # records and objectives are keyed by the name
                    raise ValueError(
                        f"two differently set algorithms share the name {a.name!r} (of "
                        f"{names}); records and objectives are keyed by name: register "
                        "each under its own with hawks_deap.clustering.register_algorithm"
                        "(name, ...) and pass the names")
        self._check_sizes([("loser", a) for a in self.losers]
                          + [("other", a) for a in self.others])
        self.objective_names = tuple([f"gap_{a.name}" for a in self.losers]
                                     + (["spread"] if self.others else []))
        if len(self.objective_names) < 2:
            raise ValueError("a multi-algorithm Versus problem needs at least 2 objectives: "
                             "give two or more losers, or others; for one loser use "
                             "VersusProblem")

    def _recorded_seeds(self, recorded: dict[str, int]) -> tuple[int, int]:
        # seeds by algorithm name; `partitions` gives the winner's and the first loser's
        # (the record's winner_score and loser_score)
        return recorded[self.winner.name], recorded[self.losers[0].name]

    @property
    def fitness_class(self) -> type[MultiObjectiveFitness]:  # type: ignore[override]
        """`MultiObjectiveFitness` maximising every objective."""
        return MultiObjectiveFitness.with_weights((1.0,) * len(self.objective_names))

    def evaluate(self, individual: Genotype, eval_seed: int | None = None) -> Evaluation:
        """One gap per loser (and the others' spread), with the record.

        Parameters
        ----------
        individual : Genotype
            A genotype of this problem (current layout).
        eval_seed : int, optional
            Seed of this evaluation; the winner's, losers' and others' seeds are spawned
            from it (``SeedSequence(eval_seed).generate_state(n)``, one per algorithm in
            that order). None: `genotype_seed`.

        Returns
        -------
        Evaluation
            The gaps in the order of ``losers``, then the spread if ``others`` are
            given, carrying the record.
        """
        return super().evaluate(individual, eval_seed)

    def _algorithms(self) -> tuple[ClusteringAlgorithm, ...]:
        return (self.winner, *self.losers, *self.others)

    def _objectives(self, scores: list[float]) -> tuple[list[float], dict[str, Any]]:
        by_name = {a.name: score for a, score in zip(self._algorithms(), scores, strict=True)}
        sign = 1.0 if self.higher_is_better else -1.0
        w = by_name[self.winner.name]
        values = [sign * (w - by_name[a.name]) for a in self.losers]
        record: dict[str, Any] = {"winner_score": w,
                                  "loser_score": by_name[self.losers[0].name]}
        record.update({f"score_{name}": value for name, value in by_name.items()})
        if self.others:
            spread = float(np.std([by_name[a.name] for a in self.others]))
            values.append(spread)
            record["spread"] = spread
        return values, record

    def _seed_record(self, seeds: list[int]) -> dict[str, int]:
        return {a.name: s for a, s in zip(self._algorithms(), seeds, strict=True)}

    def parameters(self) -> dict[str, Any]:
        """JSON-ready description of the problem."""
        params = super().parameters()
        params.update(mode="multi-versus", losers=[a.name for a in self.losers],
                      others=[a.name for a in self.others],
                      objectives=list(self.objective_names))
        params.pop("loser", None)
        params.pop("loser_k_multiplier", None)
        params.pop("loser_identity", None)
        params["identities"] = {a.name: _identity(a)
                                for a in (self.winner, *self.losers, *self.others)}
        return params

    def __repr__(self) -> str:
        return (f"MultiVersusProblem(winner={self.winner.name!r}, "
                f"losers={[a.name for a in self.losers]}, "
                f"others={[a.name for a in self.others]}, n_samples={self.n_samples}, "
                f"n_clusters={self.n_clusters}, n_dims={self.n_dims})")
