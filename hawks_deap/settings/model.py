"""Typed settings of a run: one frozen dataclass per section, each validated when built.

The dataclasses are the one source of truth for every setting of ``generate`` and
``versus``: a field's `Option` (in the field's metadata) says its type, default, bounds,
help text, command-line flag (``--key``) and TOML place (``[section] key``). The command
line's options and the TOML schema (`hawks_deap.settings.config.OPTIONS`) are read off
these fields; HAWKS 0.2.0 JSON configs (`hawks_deap.campaign.hawks_json`), suites
(`hawks_deap.campaign.suite`) and single runs (`hawks_deap.campaign.runs`) all end in a
`RunSettings`, which builds the problem and `evolve`'s arguments. Rules that span
settings (a mean operator that needs a target or several clusters, Versus needs a winner
and a loser) are checked in one place, `RunSettings`, with the rules the operators
themselves declare (`hawks_deap.operators.mutation.mean_needs`).

- `DatasetSettings` (``[dataset]``): N, K, D, and the layout's minimum cluster size and
  initial ranges;
- `IndexObjective` / `VersusObjective` (``[objective]``): Index mode's target, index and
  distance; Versus mode's winner, loser and score;
- `ConstraintSettings` (``[constraints]``): the bounds of each constraint;
- `GASettings` (``[ga]``): the evolutionary loop's settings, the seed, the preset.

A setting without an option (``equal_sizes``, ``p_mean``, ``p_cov``, ``mean_kwargs``,
``cov_kwargs``) comes only from a HAWKS 0.2.0 config; None means "the problem's or the
loop's default" and such a setting is recorded only when set.

>>> from hawks_deap.settings.model import RunSettings
>>> settings = RunSettings.from_values("generate", {"n_samples": 200, "n_clusters": 3})
>>> settings.dataset.n_samples, settings.objective.target, settings.ga.p_f
(200, 0.5, 0.5)
>>> RunSettings.from_values("versus", {"winner": "gmm", "loser": "kmeans++"}).ga.p_f
0.75
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from hawks_deap._util.memory import check_population_size
from hawks_deap._util.workers import MAX_WORKERS
from hawks_deap.settings.options import COMMANDS, Option

__all__ = [
    "ConstraintSettings", "DatasetSettings", "GASettings", "IndexObjective", "RunSettings",
    "SECTIONS", "TargetObjective", "VersusObjective", "parse_assignments", "parse_point",
    "setting_options",
]


# ------------------------------------------------------------- registries (read lazily)


def _mean_mutations() -> tuple[str, ...]:
    from hawks_deap.operators import MEAN_MUTATIONS

    return tuple(MEAN_MUTATIONS)


def silhouette_metric_names() -> tuple[str, ...]:
    from hawks_deap.evaluation import SILHOUETTE_METRICS

    return tuple(SILHOUETTE_METRICS)


def _indices() -> tuple[str, ...]:
    from hawks_deap.problems.index import available_indices

    return tuple(available_indices())


def _check_algorithm(value: str) -> str:
    """A clustering algorithm's name or import path, checked by resolving it."""
    from hawks_deap.clustering import get_algorithm

    try:
        get_algorithm(value)  # an unknown name or an unresolvable path: ValueError
    except ImportError:  # a registered algorithm's missing extra: said when the run starts
        pass
    return value


def _eccentricity_of() -> tuple[str, ...]:
    from hawks_deap.problems.constraints import ECCENTRICITY_OF

    return tuple(ECCENTRICITY_OF)


def _returns() -> tuple[str, ...]:
    from hawks_deap.algorithms.result import RETURNS

    return RETURNS


def preset_names() -> tuple[str, ...]:
    from hawks_deap.presets import PRESETS

    return tuple(PRESETS)


def _check_score(value: str) -> str:
    """A Versus score name: ``"ari"`` or an external index of ``hawks_deap.metrics``."""
    from hawks_deap.problems.versus import resolve_score

    resolve_score(value)
    return value


# --------------------------------------------------------------------------- fields


def _option(section: str, key: str, kind: str, default: Any, help: str, **kw: Any) -> Any:
    """A dataclass field described by its `Option` (its default is the option's)."""
    return field(default=default,
                 metadata={"option": Option(section, key, kind, default, help, **kw)})


def _hawks_only(help: str) -> Any:
    """A field with no option: set only by a HAWKS 0.2.0 config (None: the default)."""
    return field(default=None, metadata={"option": None, "help": help})


class _Section:
    """Validation shared by the sections: each field through its option, once, when built."""

    SECTION: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Any]]  # every section is a dataclass

    def __post_init__(self) -> None:
        for f in fields(self):
            opt: Option | None = f.metadata.get("option")
            value = getattr(self, f.name)
            if opt is None or (value is None and opt.default is None):
                continue  # unset (checked where it is used, or a rule of RunSettings)
            object.__setattr__(self, f.name, opt.validate(value))

    def values(self) -> dict[str, Any]:
        """``{key: value}``: every option's value, and the HAWKS-only settings set."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.metadata.get("option") is not None or getattr(self, f.name) is not None}


@dataclass(frozen=True)
class DatasetSettings(_Section):
    """``[dataset]``: the size and layout of the datasets.

    Parameters
    ----------
    n_samples, n_clusters, n_dims : int
        N (>= 1), K (>= 2) and D (>= 1).
    min_size : int, optional
        The smallest cluster size (None: the problem's, 10).
    initial_mean_upper, initial_cov_upper : float, optional
        Upper ends of the initial means' U(0, u) and variances' U(0, u) (None: the
        problem's, 2.0 and 0.5).
    equal_sizes : bool, optional
        Equal cluster sizes (HAWKS configs only; None: random sizes).
    """

    SECTION: ClassVar[str] = "dataset"
    n_samples: int = _option("dataset", "n_samples", "int", 1000, "number of points N", low=1)
    n_clusters: int = _option("dataset", "n_clusters", "int", 5, "number of clusters K", low=2)
    n_dims: int = _option("dataset", "n_dims", "int", 2, "dimension D", low=1)
    min_size: int | None = _option(
        "dataset", "min_size", "int", None,
        "smallest cluster size (none: the problem's, 10)", low=1, nullable=True)
    initial_mean_upper: float | None = _option(
        "dataset", "initial_mean_upper", "float", None,
        "initial means drawn from U(0, this) in each dimension (none: the problem's: 2, "
        "Versus 10)",
        low=0.0, low_open=True, nullable=True)
    initial_cov_upper: float | None = _option(
        "dataset", "initial_cov_upper", "float", None,
        "initial variances drawn from U(0, this) (none: the problem's, 0.5)",
        low=0.0, low_open=True, nullable=True)
    equal_sizes: bool | None = _hawks_only("equal cluster sizes (HAWKS equal_clusters)")


@dataclass(frozen=True)
class IndexObjective(_Section):
    """``[objective]`` of Index mode (``generate``).

    Parameters
    ----------
    target : float
        The index value to reach (within the index's range, checked with it).
    index : str
        A validity index (`hawks_deap.problems.index.available_indices`).
    metric : str
        The silhouette's distance (``"sqeuclidean"``: HAWKS').
    """

    SECTION: ClassVar[str] = "objective"
    # (the range is the index's, checked with it: [-1, 1] for the silhouette)
    target: float = _option("objective", "target", "float", 0.5,
                            "target value of the index (Index mode), within the index's range",
                            commands=("generate",))
    index: str = _option("objective", "index", "str", "silhouette", "validity index to target",
                         choices=_indices, commands=("generate",))
    metric: str = _option("objective", "metric", "str", "sqeuclidean",
                          "distance of the silhouette (sqeuclidean: HAWKS' choice)",
                          choices=silhouette_metric_names, commands=("generate",))


@dataclass(frozen=True)
class VersusObjective(_Section):
    """``[objective]`` of Versus mode (``versus``).

    Parameters
    ----------
    winner, loser : str
        Clustering algorithms: registered names
        (`hawks_deap.clustering.available_algorithms`), import paths
        ``"package.module:attr"`` / ``"path/to/file.py:attr"`` or installed plugins
        (`hawks_deap.clustering.get_algorithm`).
    score : str
        ``"ari"`` or an external index of `hawks_deap.metrics`.
    """

    SECTION: ClassVar[str] = "objective"
    winner: str | None = _option("objective", "winner", "str", None,
                                 "clustering algorithm to favour: a registered name, "
                                 "package.module:attr, path/to/file.py:attr or a plugin",
                                 check=_check_algorithm,
                                 commands=("versus",), positional=True)
    loser: str | None = _option("objective", "loser", "str", None,
                                "clustering algorithm to defeat (as WINNER)",
                                check=_check_algorithm,
                                commands=("versus",), positional=True)
    score: str = _option("objective", "score", "str", "ari",
                         "external index scoring each partition against the truth: ari "
                         "(HAWKS'), nca (clustbench's normalised clustering accuracy) or "
                         "any external index of hawks_deap.metrics",
                         check=_check_score, commands=("versus",))


def parse_assignments(text: str) -> dict[str, float]:
    """``"name=value,name=value"`` as ``{name: value}`` (finite numbers, distinct names).

    The text form of a feature target's ``targets``, ``weights`` and ``scale`` on the
    command line and in TOML (one string: a grid's list would be a grid axis).

    Parameters
    ----------
    text : str
        E.g. ``"silhouette=0.3, connectivity=0.8"`` (spaces ignored).

    Returns
    -------
    dict of str to float

    Raises
    ------
    ValueError
        For an empty text, an item without ``=``, a repeated name or a value that is not
        a finite number, naming it.
    """
    out: dict[str, float] = {}
    for item in (t.strip() for t in str(text).split(",")):
        name, sep, number = (part.strip() for part in item.partition("="))
        if not sep or not name:
            raise ValueError(f"{item!r} is not name=value (e.g. 'silhouette=0.3')")
        if name in out:
            raise ValueError(f"{name!r} is given twice")
        try:
            value = float(number)
        except ValueError:
            raise ValueError(f"{name}={number!r}: not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"{name}={number!r}: not a finite number")
        out[name] = value
    return out


def parse_point(text: str) -> tuple[float, ...]:
    """``"x,y"`` as a tuple of finite floats (a point of an instance space).

    Parameters
    ----------
    text : str
        Comma-separated coordinates, e.g. ``"0.5,-1.25"``.

    Returns
    -------
    tuple of float

    Raises
    ------
    ValueError
        For a coordinate that is not a finite number.
    """
    out = []
    for part in str(text).split(","):
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"{text!r} is not comma-separated numbers (e.g. '0.5,-1.25')"
                             ) from None
        if not math.isfinite(value):
            raise ValueError(f"{text!r} has a coordinate that is not finite")
        out.append(value)
    return tuple(out)


def _check_targets_text(value: str) -> str:
    from hawks_deap.problems.features import check_targets

    check_targets(parse_assignments(value))
    return value


def _check_assignments(value: str) -> str:
    parse_assignments(value)
    return value


def _check_point(value: str) -> str:
    parse_point(value)
    return value


@dataclass(frozen=True)
class TargetObjective(_Section):
    """``[objective]`` of Feature-target mode (``target``): problem features to reach.

    Either ``targets`` (features and their values: `FeatureTargetProblem`), or
    ``space`` and ``point`` (a point of a saved instance space: `SpaceTargetProblem`).

    Parameters
    ----------
    targets : str, optional
        ``"name=value,..."``: targetable features (``connectivity``, ``eccentricity``,
        ``silhouette``, ``silhouette_std``) in the raw units of `problem_features`.
    weights, scale : str, optional
        ``"name=value,..."``: each targeted feature's weight (default 1) and unit
        (default 1), as `FeatureTargetProblem`'s.
    space : str, optional
        An instance space saved by `InstanceSpace.save` (a JSON file); a relative path
        is read from the working directory (in a grid file: from the grid's folder).
    point : str, optional
        The target point of ``space``: ``"x,y"``, one coordinate per component.
    """

    SECTION: ClassVar[str] = "objective"
    targets: str | None = _option(
        "objective", "targets", "str", None,
        "features to reach, name=value,... (connectivity, eccentricity, silhouette, "
        "silhouette_std; raw units)", check=_check_targets_text, nullable=True,
        commands=("target",))
    weights: str | None = _option(
        "objective", "weights", "str", None,
        "weight of each targeted feature, name=value,... (none: 1 for each)",
        check=_check_assignments, nullable=True, commands=("target",))
    scale: str | None = _option(
        "objective", "scale", "str", None,
        "unit of each targeted feature, name=value,... (e.g. its standard deviation in a "
        "reference collection; none: 1 for each)", check=_check_assignments, nullable=True,
        commands=("target",))
    space: str | None = _option(
        "objective", "space", "str", None,
        "an instance space saved as JSON (InstanceSpace.save, hawks-deap fill), with "
        "--point", nullable=True, commands=("target",))
    point: str | None = _option(
        "objective", "point", "str", None,
        "the target point of --space: x,y (one coordinate per component)",
        check=_check_point, nullable=True, commands=("target",))

    def check(self) -> None:
        """Either targets, or a space and a point (weights and scale with targets only)."""
        spaced = (self.space is not None, self.point is not None)
        if self.targets is None and spaced != (True, True):
            raise ValueError("Feature-target mode needs --targets, or --space and --point "
                             f"({'--point' if spaced[0] else '--space'} missing)"
                             if any(spaced) else
                             "Feature-target mode needs --targets, or --space and --point")
        if self.targets is not None and any(spaced):
            raise ValueError("give either --targets or --space and --point, not both")
        extra = [k for k in ("weights", "scale") if getattr(self, k) is not None]
        if self.targets is None and extra:
            raise ValueError(f"--{extra[0]} weighs --targets; a point of --space has none")

    def problem(self, dataset: Mapping[str, Any], constraints: list[Any]) -> Any:
        """`FeatureTargetProblem` or `SpaceTargetProblem` of these settings.

        Parameters
        ----------
        dataset : mapping
            ``n_samples``, ``n_clusters``, ``n_dims`` and the layout's keyword arguments.
        constraints : list of Constraint
        """
        if self.targets is not None:
            from hawks_deap.problems.features import FeatureTargetProblem

            def parsed(text: str | None) -> dict[str, float] | None:
                return None if text is None else parse_assignments(text)

            return FeatureTargetProblem(**dataset, targets=parse_assignments(self.targets),
                                        weights=parsed(self.weights),
                                        scale=parsed(self.scale), constraints=constraints)
        from hawks_deap.analysis.features import InstanceSpace

        assert self.space is not None and self.point is not None  # (check)
        space = InstanceSpace.load(self.space)
        sizes = (dataset["n_samples"], dataset["n_clusters"], dataset["n_dims"])
        layout = {k: v for k, v in dataset.items()
                  if k not in ("n_samples", "n_clusters", "n_dims")}
        return space.target_problem(parse_point(self.point), *sizes,
                                    constraints=constraints, **layout)


@dataclass(frozen=True)
class ConstraintSettings(_Section):
    """``[constraints]``: a bound ``min_<measure>`` / ``max_<measure>`` per constraint.

    None leaves a bound unset; `constraints` builds one constraint per measure of
    `hawks_deap.problems.constraints.CONSTRAINTS` with a bound set.

    Parameters
    ----------
    max_overlap, min_overlap : float, optional
        Bounds of the share of points whose nearest neighbour is in another cluster.
    min_eccentricity, max_eccentricity : float, optional
        Bounds of the clusters' eigenvalue ratio (>= 1).
    eccentricity_of : {"any", "all"}
        Which clusters an eccentricity bound is about.
    """

    SECTION: ClassVar[str] = "constraints"
    max_overlap: float | None = _option(
        "constraints", "max_overlap", "float", 0.1,
        "overlap constraint: at most this share of points whose nearest neighbour is in "
        "another cluster", low=0.0, high=1.0, nullable=True)
    min_eccentricity: float | None = _option(
        "constraints", "min_eccentricity", "float", None,
        "eccentricity constraint: some cluster's eigenvalue ratio at least this",
        low=1.0, nullable=True)
    eccentricity_of: str = _option(
        "constraints", "eccentricity_of", "str", "any",
        "which clusters the eccentricity bound is about: any (the largest ratio, Eq. 6 and "
        "HAWKS 0.2.0) or all (the smallest, the paper's text)", choices=_eccentricity_of)
    min_overlap: float | None = _option(
        "constraints", "min_overlap", "float", None,
        "overlap constraint: at least this share of points whose nearest neighbour is in "
        "another cluster", low=0.0, high=1.0, nullable=True)
    max_eccentricity: float | None = _option(
        "constraints", "max_eccentricity", "float", None,
        "eccentricity constraint: the eigenvalue ratio at most this (the HAWKS paper's "
        "Versus experiments: 20)", low=1.0, nullable=True)

    def constraints(self) -> list[Any]:
        """The constraints these bounds describe (`hawks_deap.problems.constraints`)."""
        from hawks_deap.problems.constraints import from_settings

        return from_settings(self.values())


@dataclass(frozen=True)
class GASettings(_Section):
    """``[ga]``: the evolutionary loop, the seed, the preset and the evaluation processes.

    Parameters
    ----------
    generations, population_size : int
        G (>= 1) and P (>= 2, its genes must fit in memory).
    mean_mutation : str
        A mean operator of `hawks_deap.operators.MEAN_MUTATIONS`.
    p_crossover, p_f : float
        Crossover probability; stochastic ranking's probability of comparing on fitness
        (Versus mode's default 0.75).
    seed : int
        The run's seed.
    returns : str
        Which individual a run returns (`hawks_deap.algorithms.RETURNS`).
    preset : str, optional
        A preset of `hawks_deap.presets` applied under the given settings.
    n_jobs : int, optional
        Evaluation processes (None: `hawks_deap.evolve`'s default, one per core, at most
        one per individual (per clustering in Versus mode), for problems that evaluate in
        parallel by default, as Versus mode; 1 otherwise). Results do not depend on it.
    p_mean, p_cov : float, optional
        Per-gene mutation probabilities (HAWKS configs only; None: 1/K).
    mean_kwargs, cov_kwargs : mapping, optional
        Options of the mean and covariance operators (HAWKS configs only).
    """

    SECTION: ClassVar[str] = "ga"
    generations: int = _option("ga", "generations", "int", 100, "number of generations G",
                               low=1)
    population_size: int = _option("ga", "population_size", "int", 10, "population size P",
                                   low=2, check=check_population_size)
    mean_mutation: str = _option("ga", "mean_mutation", "str", "pso", "mean mutation operator",
                                 choices=_mean_mutations)
    p_crossover: float = _option("ga", "p_crossover", "float", 0.7,
                                 "probability of crossing a pair", low=0.0, high=1.0)
    p_f: float = _option("ga", "p_f", "float", 0.5,
                         "stochastic ranking's probability of comparing on fitness",
                         low=0.0, high=1.0, command_defaults={"versus": 0.75})
    seed: int = _option("ga", "seed", "int", 0, "random seed", low=0)
    returns: str = _option("ga", "returns", "str", "best-feasible",
                           "the individual a run returns: best-feasible, the best feasible "
                           "seen; final-fittest, the final population's best fitness whatever "
                           "its penalty (HAWKS 0.2.0's comparison 'fitness'); final-top-ranked, "
                           "the first of the final stochastic ranking (its comparison "
                           "'ranking')",
                           choices=_returns)
    preset: str | None = _option("ga", "preset", "str", None,
                                 "named settings of a study (hawks-tevc: the HAWKS paper's; "
                                 "see hawks_deap.presets); options given in a file or here "
                                 "win over it", choices=preset_names, nullable=True)
    n_jobs: int | None = _option("ga", "n_jobs", "int", None,
                                 "processes that evaluate (a pool of n_jobs workers, at most "
                                 "one per individual, in Versus mode one per clustering of an "
                                 "individual; 1: this process; none: one per core "
                                 "in Versus mode, 1 otherwise, as hawks_deap.evolve; an "
                                 "Index-mode run too small for a pool to pay evaluates in "
                                 "this process and says so)", low=1,
                                 high=MAX_WORKERS, nullable=True)
    p_mean: float | None = _hawks_only("per-gene mean mutation probability")
    p_cov: float | None = _hawks_only("per-gene covariance mutation probability")
    mean_kwargs: Mapping[str, Any] | None = _hawks_only("options of the mean operator")
    cov_kwargs: Mapping[str, Any] | None = _hawks_only("options of the covariance operator")

    def __post_init__(self) -> None:
        super().__post_init__()
        from hawks_deap.operators.mutation import check_mutation_options

        check_mutation_options(self.mean_mutation, self.mean_kwargs, self.cov_kwargs)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> GASettings:
        """The ``[ga]`` settings among ``values`` (other keys ignored; defaults fill in).

        Parameters
        ----------
        values : mapping
            Settings by key.

        Returns
        -------
        GASettings
        """
        return cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values})

    def evolve_options(self) -> dict[str, Any]:
        """Keyword arguments of `hawks_deap.evolve` (the seed excluded).

        Returns
        -------
        dict
            The loop's settings; the HAWKS-only ones when set.
        """
        out = {k: getattr(self, k) for k in ("population_size", "generations", "p_crossover",
                                             "p_f", "mean_mutation", "n_jobs", "returns")}
        out.update({k: getattr(self, k) for k in ("p_mean", "p_cov", "mean_kwargs",
                                                  "cov_kwargs") if getattr(self, k) is not None})
        return out


#: The sections, in the schema's order; for each command, its objective.
SECTIONS: tuple[type[_Section], ...] = (DatasetSettings, IndexObjective, VersusObjective,
                                        TargetObjective, ConstraintSettings, GASettings)
_OBJECTIVES: dict[str, type[_Section]] = {"generate": IndexObjective,
                                          "versus": VersusObjective, "target": TargetObjective}


def setting_options() -> tuple[Option, ...]:
    """The options of every setting, in the schema's order (sections, then fields)."""
    return tuple(f.metadata["option"] for cls in SECTIONS for f in fields(cls)
                 if f.metadata.get("option") is not None)


# --------------------------------------------------------------------------- a run


@dataclass(frozen=True)
class RunSettings:
    """All the settings of one ``generate`` or ``versus`` run, checked together.

    Parameters
    ----------
    command : {"generate", "versus", "target"}
        Index mode, Versus mode or Feature-target mode.
    dataset : DatasetSettings
    objective : IndexObjective, VersusObjective or TargetObjective
        The command's.
    constraints : ConstraintSettings
    ga : GASettings

    Raises
    ------
    ValueError
        For settings valid one by one but not together, naming them: Versus without a
        winner or a loser; a mean operator that needs a target (Index mode only) or more
        clusters than K.
    """

    command: str
    dataset: DatasetSettings
    objective: IndexObjective | VersusObjective | TargetObjective
    constraints: ConstraintSettings
    ga: GASettings

    def __post_init__(self) -> None:
        if self.command not in COMMANDS:
            raise ValueError(f"unknown command {self.command!r}; valid: {', '.join(COMMANDS)}")
        if type(self.objective) is not _OBJECTIVES[self.command]:
            raise TypeError(f"objective of {self.command!r} must be a "
                            f"{_OBJECTIVES[self.command].__name__}, got "
                            f"{type(self.objective).__name__}")
        self._check_rules()

    def _check_rules(self) -> None:
        """The rules that span settings: the one place they are written."""
        from hawks_deap.operators.mutation import mean_needs

        name = self.ga.mean_mutation
        needs_target, min_clusters, why = mean_needs(name)
        if needs_target and self.command != "generate":
            # (a feature target's silhouette would do, but one rule is simpler to state)
            raise ValueError(f"--mean-mutation {name} ([ga] mean_mutation) needs a target "
                             "index value: Index mode (generate) only")
        if self.dataset.n_clusters < min_clusters:
            raise ValueError(f"--mean-mutation {name} ([ga] mean_mutation = {name!r}) needs "
                             f"--n-clusters >= {min_clusters} ([dataset] n_clusters)"
                             + (f": {why}" if why else ""))
        if isinstance(self.objective, TargetObjective):
            self.objective.check()
        if isinstance(self.objective, VersusObjective):
            missing = [r for r in ("winner", "loser") if getattr(self.objective, r) is None]
            if missing:
                raise ValueError(f"Versus mode needs a winner and a loser "
                                 f"({' and '.join(missing)} missing)")

    @classmethod
    def from_values(cls, command: str, values: Mapping[str, Any]) -> RunSettings:
        """The settings of ``command`` from flat ``{key: value}`` settings.

        Parameters
        ----------
        command : {"generate", "versus"}
            The command; its defaults fill the keys not given.
        values : mapping
            Settings by key (`hawks_deap.settings.config.resolve`'s, a HAWKS config's,
            a suite configuration's or a run's recorded ``settings``).

        Returns
        -------
        RunSettings

        Raises
        ------
        ValueError
            For an unknown command or key, naming it; and as the sections and
            `RunSettings` check.
        TypeError
            For a value of the wrong type (as its `Option`).
        """
        if command not in COMMANDS:
            raise ValueError(f"unknown command {command!r}; valid: {', '.join(COMMANDS)}")
        sections = (DatasetSettings, _OBJECTIVES[command], ConstraintSettings, GASettings)
        known = {f.name for c in sections for f in fields(c)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown settings for {command}: {', '.join(unknown)}")
        parts: list[Any] = []
        for section in sections:
            kwargs = {}
            for f in fields(section):
                opt = f.metadata.get("option")
                if f.name in values:
                    kwargs[f.name] = values[f.name]
                elif opt is not None:
                    kwargs[f.name] = opt.default_for(command)
            parts.append(section(**kwargs))
        return cls(command, *parts)

    def values(self) -> dict[str, Any]:
        """Flat ``{key: value}``: every option of the command, the HAWKS-only ones set."""
        return {**self.dataset.values(), **self.objective.values(),
                **self.constraints.values(), **self.ga.values()}

    def problem(self) -> Any:
        """The problem these settings describe (Index, Versus, feature or space target)."""
        d = self.dataset
        layout = {k: getattr(d, k) for k in ("equal_sizes", "min_size", "initial_mean_upper",
                                             "initial_cov_upper") if getattr(d, k) is not None}
        constraints = self.constraints.constraints()
        o = self.objective
        if isinstance(o, TargetObjective):
            return o.problem({"n_samples": d.n_samples, "n_clusters": d.n_clusters,
                              "n_dims": d.n_dims, **layout}, constraints)
        if isinstance(o, IndexObjective):
            from hawks_deap.problems.index import IndexProblem

            return IndexProblem(d.n_samples, d.n_clusters, d.n_dims, o.target, index=o.index,
                                metric=o.metric, constraints=constraints, **layout)
        from hawks_deap.clustering import get_algorithm
        from hawks_deap.problems.versus import VersusProblem

        winner, loser = (get_algorithm(name, preset=self.ga.preset)
                         for name in (o.winner, o.loser))
        return VersusProblem(winner, loser, n_samples=d.n_samples, n_clusters=d.n_clusters,
                             n_dims=d.n_dims, score=o.score, constraints=constraints,
                             **layout)

    def evolve_options(self) -> dict[str, Any]:
        """Keyword arguments of `hawks_deap.evolve` (the seed excluded): `GASettings`'."""
        return self.ga.evolve_options()
