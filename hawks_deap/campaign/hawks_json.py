"""HAWKS 0.2.0 JSON configs, translated into hawks-deap settings.

``hawks-deap generate|versus --config FILE.json`` and ``hawks-deap suite FILE.json`` read
a config of the original HAWKS (PyPI ``hawks`` 0.2.0, and the extensions of the TEVC
experiment configs: Versus objectives, the supplement's mean mutations). Keys the file
leaves out take HAWKS 0.2.0's defaults (`HAWKS_DEFAULTS`, from its ``defaults.json``),
not hawks-deap's: a config without ``constraints`` has HAWKS' overlap <= 0 and
eigenvalue ratio <= 20. A list value is a grid, as in HAWKS (``generator.py``: every
list, in the file's order, the first varying slowest), so ``c003`` of the suite is
HAWKS' ``config-3``; such a config (or ``num_runs`` > 1) is a suite.

Unknown keys are refused, as HAWKS refuses them; known keys with no counterpart are
listed (`HawksConfig.unmapped`, printed by the command, recorded in metadata); values
hawks-deap cannot honour are refused naming the HAWKS key, the value and what is
accepted. Every run's metadata gets ``settings_source = {"kind": "hawks-0.2.0-json",
"path": ..., "unmapped": [...], "notes": [...]}``.

The mapping (``->``: a setting of `hawks_deap.settings.config.OPTIONS`; *extra*: a problem or
`hawks_deap.evolve` argument without a command-line option):

==================================  =========================================================
HAWKS key                           hawks-deap
==================================  =========================================================
hawks.mode                          the command: "single" -> generate, "versus" -> versus
hawks.n_objectives                  1 only (the HAWKS loop has one objective)
hawks.num_runs                      [suite] runs; generate and versus make one run (1 only)
hawks.seed_num                      -> [ga] seed ([suite] seed). null (HAWKS seeds from the
                                    clock) -> seed 0, noted. HAWKS seeds run r of every
                                    configuration with seed_num + 10 r; a suite derives
                                    each run's seed from (seed, configuration, run)
hawks.comparison                    -> [ga] returns: "fitness" -> "final-fittest" (the
                                    final population's best fitness, whatever its
                                    penalty), "ranking" -> "final-top-ranked" (the first
                                    of the final stochastic ranking; the authors' Index
                                    script sets it). Our default is the best feasible seen
hawks.folder_name, save_best_data,  unmapped: ``--out``; every run saves its dataset,
save_stats, save_config             logbook and settings
objectives.silhouette.target        -> [objective] target, index "silhouette", metric
                                    "sqeuclidean" (HAWKS' squared-Euclidean silhouette)
objectives.silhouette.method        unmapped (two ways to the same value)
objectives.winner/loser.algorithm   -> [objective] winner / loser: kmeans -> kmeans++, gmm,
                                    single_linkage, average_linkage (compared as HAWKS
                                    does: case, "-", "_", spaces ignored). Our kmeans++ has
                                    one k-means++ start, our gmm scikit-learn's defaults;
                                    ``--preset hawks-tevc`` (versus, suite): 10 and 3
                                    starts, as the paper's analysis
...k_multiplier                     null or 1; 2: the linkages' -2k variants
...kwargs                           null or {} only
objectives.scoring_method           -> [objective] score ("ari"; default "ari")
dataset.num_examples                -> [dataset] n_samples (our sizes sum to N exactly;
                                    HAWKS rounds each size, so may miss N by a few)
dataset.num_clusters, num_dims      -> [dataset] n_clusters, n_dims
dataset.equal_clusters              extra equal_sizes
dataset.min_clust_size              extra min_size; HAWKS' rule kept, noted: null, a float,
                                    more than N or than N/K -> 2
ga.num_gens                         -> [ga] generations = num_gens - 1: HAWKS counts the
                                    initial population as its first generation (the same
                                    number of evaluations)
ga.num_indivs                       -> [ga] population_size
ga.mut_method_mean                  -> [ga] mean_mutation: random -> gaussian, rails, pso,
                                    pso_informed -> pso-informed (Index mode), de;
                                    pso_full is refused (not among the paper's operators)
ga.mut_args_mean.<the selected>     extra mean_kwargs: scalar_lower / scalar_higher ->
                                    low / high, F, scale, dims ("each": each
                                    coordinate with probability 1/D; "all": every one;
                                    the same in both)
ga.mut_args_mean.<the others>       unmapped (HAWKS does not use them either)
ga.mut_method_cov                   "haar" only
ga.mut_args_cov.haar.power          extra cov_kwargs power (Dirichlet alpha 3 in both)
ga.mut_prob_mean, mut_prob_cov      extra p_mean, p_cov: "length" -> 1/K (our default,
                                    left unset), or a probability
ga.mate_scheme                      "dv" only (`cx_uniform`: means and covariances swapped
                                    independently, probability 0.5 each); "cluster" refused
ga.mate_prob, prob_fitness          -> [ga] p_crossover, p_f
ga.elites                           no elitism only: int(num_indivs x elites) = 0
ga.initial_mean_upper, _cov_upper   extra initial_mean_upper, initial_cov_upper (U(0, b)
                                    per coordinate and a Haar rotation, in both)
ga.environ_selection                "sr" (stochastic ranking) only
ga.parent_selection                 "tournament" / "binary" (binary tournament on rank) only
constraints.overlap                 limit "upper" -> [constraints] max_overlap; "lower" ->
                                    extra min_overlap (the same measure and penalty)
constraints.eigenval_ratio          "lower" -> [constraints] min_eccentricity; "upper" ->
                                    extra max_eccentricity (max over clusters in both)
==================================  =========================================================

Options given on the command line override the file (``--generations 5``); giving
another ``--mean-mutation`` drops the file's mean-mutation arguments.
"""

from __future__ import annotations

import copy
import difflib
import itertools
import json
import math
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hawks_deap._util.files import CONFIG_MAX_BYTES, CONFIG_MAX_DEPTH, read_json, short_repr
from hawks_deap._util.validation import check_float, check_int, check_probability
from hawks_deap.campaign.hawks_schema import (
    ALGORITHM_NAMES,
    COMPARISONS,
    DIMS,
    HAWKS_DEFAULTS,
    KNOWN_KEYS,
    MEAN_ARGS,
    MEAN_MUTATION_NAMES,
    UNMAPPED,
    UNSELECTED,
)
from hawks_deap.campaign.seed_keys import key_values
from hawks_deap.campaign.suite import Suite, check_distinct, check_size, checked_configuration
from hawks_deap.operators.mutation import check_mutation_options, mean_needs
from hawks_deap.settings import config

__all__ = ["HAWKS_DEFAULTS", "HAWKS_KIND", "HawksConfig", "HawksPoint", "hawks_suite",
           "is_hawks_json", "load_hawks_config", "run_settings", "translate_hawks_config"]

#: ``settings_source["kind"]`` of runs whose settings came from a HAWKS config.
HAWKS_KIND = "hawks-0.2.0-json"


@dataclass(frozen=True)
class HawksPoint:
    """One configuration of a HAWKS config (one point of its grid), translated.

    Attributes
    ----------
    hawks : dict
        The grid values of this point, ``{"dataset.num_examples": 500, ...}`` (empty
        without a grid).
    file_values : dict
        ``{section: {key: value}}`` of `hawks_deap.settings.config.OPTIONS`, as `config.resolve`
        takes them from a config file.
    extras : dict
        Problem and `hawks_deap.evolve` arguments without an option (``min_size``,
        ``initial_mean_upper``, ``mean_kwargs``, ``max_eccentricity``, ...), added to the
        resolved settings (see `hawks_deap.campaign.runs.PROBLEM_EXTRAS`).
    """

    hawks: dict[str, Any]
    file_values: dict[str, dict[str, Any]]
    extras: dict[str, Any]


@dataclass(frozen=True)
class HawksConfig:
    """A HAWKS config, checked and translated (`load_hawks_config`).

    Attributes
    ----------
    path : str or None
        The file.
    mode : {"index", "versus"}
        From ``hawks.mode``.
    runs : int
        ``hawks.num_runs``.
    seed : int or None
        ``hawks.seed_num``.
    points : tuple of HawksPoint
        One per configuration of the grid, in HAWKS' order.
    grid : dict
        ``{HAWKS key: [values]}`` of the list-valued keys, in the file's order.
    unmapped : dict
        ``{HAWKS key: why}`` for the keys of the file that have no counterpart.
    notes : tuple of str
        Where HAWKS' own rules changed a value (e.g. ``min_clust_size``).
    merged : dict
        The whole config with HAWKS' defaults filled in.
    """

    path: str | None
    mode: str
    runs: int
    seed: int | None
    points: tuple[HawksPoint, ...]
    grid: dict[str, list[Any]]
    unmapped: dict[str, str]
    notes: tuple[str, ...]
    merged: dict[str, Any]

    @property
    def command(self) -> str:
        """The command that runs one configuration: "generate" or "versus"."""
        return "generate" if self.mode == "index" else "versus"

    @property
    def where(self) -> str:
        """`` in PATH`` for messages (empty without a path)."""
        return f" in {self.path}" if self.path else ""

    def settings_source(self) -> dict[str, Any]:
        """The ``settings_source`` metadata entry of its runs."""
        return {"kind": HAWKS_KIND, "path": self.path, "unmapped": list(self.unmapped),
                "notes": list(self.notes)}

    def messages(self) -> list[str]:
        """Lines for the command's stderr: the unmapped keys (by reason), then the notes."""
        by_reason: dict[str, list[str]] = {}
        for key, why in self.unmapped.items():
            by_reason.setdefault(why, []).append(key)
        lines = [f"HAWKS keys not used ({why}): {', '.join(keys)}"
                 for why, keys in by_reason.items()]
        return lines + list(self.notes)


# --------------------------------------------------------------------------- reading


def is_hawks_json(path: str | os.PathLike) -> bool:
    """Whether a config path names a HAWKS JSON config (by its ``.json`` suffix).

    Parameters
    ----------
    path : str or os.PathLike
        The config path (only its name is looked at, in any case: ``.JSON`` too).
    """
    return Path(path).suffix.lower() == ".json"


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ValueError(f"duplicate key {twice[0]!r}")
    return dict(pairs)


def load_hawks_config(path: str | os.PathLike) -> HawksConfig:
    """Read, check and translate a HAWKS 0.2.0 JSON config (see the module's table).

    Parameters
    ----------
    path : str or os.PathLike
        The JSON file (UTF-8; a key given twice in one object is refused).

    Raises
    ------
    ValueError, TypeError
        Naming the file and the HAWKS key: unreadable or invalid JSON, an unknown key
        (with the closest valid one), a wrong type, or a value hawks-deap cannot honour
        (with what it accepts).
    """
    data = read_json(path, f"config file {path}", limit=CONFIG_MAX_BYTES,
                     max_depth=CONFIG_MAX_DEPTH, object_pairs_hook=_object)
    return translate_hawks_config(data, path=str(path))


def _check_keys(table: Any, schema: Mapping[str, Any], prefix: str, where: str,
                axes: dict[str, list[Any]]) -> None:
    """Refuse unknown keys and malformed lists; collect the grid's lists (``axes``)."""
    if not isinstance(table, Mapping):
        what = prefix or "a HAWKS config"
        raise TypeError(f"{what}{where} must be a JSON object of keys, got "
                        f"{short_repr(table)}")
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else key
        if key not in schema:
            close = difflib.get_close_matches(key, list(schema), n=1)
            hint = f"; did you mean {(prefix + '.') if prefix else ''}{close[0]}?" if close else ""
            raise ValueError(f"unknown HAWKS key {name}{where}{hint} (valid keys"
                             f"{' of ' + prefix if prefix else ''}: {', '.join(schema)})")
        if isinstance(schema[key], dict):
            _check_keys(value, schema[key], name, where, axes)
        elif isinstance(value, Mapping) and key != "kwargs":  # kwargs: checked where used
            raise TypeError(f"{name}{where} must be a single value, got an object "
                            f"{short_repr(value)}")
        elif isinstance(value, list):
            if prefix == "hawks":
                raise ValueError(f"{name}{where} must be a single value, got a list "
                                 f"{short_repr(value)} (HAWKS 0.2.0 cannot vary it either)")
            if not value:
                raise ValueError(f"{name}{where} must not be an empty list")
            nested = [v for v in value if isinstance(v, list)
                      or (isinstance(v, Mapping) and key != "kwargs")]
            if nested:  # (a list is a grid of single values: one level)
                raise TypeError(f"{name}{where} lists the values of a grid, each a single "
                                f"value; got {short_repr(nested[0])} in it")
            check_distinct(f"{name}{where}", value, "; list it once")
            axes[name] = list(value)


def _with_defaults(data: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """HAWKS' merge: missing keys take the default (recursively); present ones stay."""
    out = copy.deepcopy(dict(data))
    for key, default in defaults.items():
        if key not in out:
            out[key] = copy.deepcopy(default)
        elif isinstance(default, dict) and isinstance(out[key], dict):
            out[key] = _with_defaults(out[key], default)
    return out


def _has(data: Mapping[str, Any], dotted: str) -> bool:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return True


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        data = data[part]
    data[last] = value


def _normalised(key: str, value: Any, where: str) -> str:
    """HAWKS' ``translate_method``: lower case, without "-", "_" and spaces."""
    if not isinstance(value, str):
        raise TypeError(f"{key}{where} must be a string, got {value!r}")
    return value.lower().translate(str.maketrans("", "", "-_ "))


def _refuse(key: str, value: Any, where: str, accepted: str) -> ValueError:
    return ValueError(f"{key} = {json.dumps(value)}{where} cannot be honoured by hawks-deap; "
                      f"accepted: {accepted}")


# --------------------------------------------------------------------------- translation


class _Point:
    """The translation of one configuration, built section by section."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.file_values: dict[str, dict[str, Any]] = {}
        self.extras: dict[str, Any] = {}
        self.unmapped: dict[str, str] = {}
        self.notes: list[str] = []

    def option(self, hawks_key: str, section: str, key: str, value: Any) -> Any:
        """Set an option, checked by the schema under the HAWKS key's name."""
        opt = config.find_option(section, key)
        assert opt is not None, (section, key)  # the translation names schema options only
        name = f"{hawks_key} (-> {opt.qualified}){self.where}"
        self.file_values.setdefault(section, {})[key] = opt.validate(value, name)
        return self.file_values[section][key]

    def number(self, key: str, value: Any, **bounds: Any) -> float:
        return check_float(f"{key}{self.where}", value, **bounds)


def _hawks_section(hawks: Mapping[str, Any],
                   where: str) -> tuple[str, int, int | None, str]:
    """Mode, runs, seed and ``[ga] returns``, after checking the keys of ``hawks``."""
    modes = {"single": "index", "versus": "versus"}
    if hawks["mode"] not in modes:
        raise _refuse("hawks.mode", hawks["mode"], where, '"single" (Index mode), "versus"')
    if hawks["n_objectives"] != 1 or isinstance(hawks["n_objectives"], bool):
        raise _refuse("hawks.n_objectives", hawks["n_objectives"], where,
                      "1 (several objectives: hawks_deap.evolve(problem.as_multiobjective(), "
                      "algorithm='nsga2') in Python)")
    if not isinstance(hawks["comparison"], str) or hawks["comparison"] not in COMPARISONS:
        raise _refuse("hawks.comparison", hawks["comparison"], where,
                      '"fitness" (the final population\'s best fitness), "ranking" (the '
                      'top of the final stochastic ranking)')
    runs = check_int(f"hawks.num_runs{where}", hawks["num_runs"], minimum=1)
    seed = hawks["seed_num"]
    if seed is not None:
        opt = config.find_option("ga", "seed")
        assert opt is not None
        seed = opt.validate(seed, f"hawks.seed_num (-> {opt.qualified}){where}")
    return modes[hawks["mode"]], runs, seed, COMPARISONS[hawks["comparison"]]


def _dataset(d: Mapping[str, Any], out: _Point) -> None:
    n = out.option("dataset.num_examples", "dataset", "n_samples", d["num_examples"])
    k = out.option("dataset.num_clusters", "dataset", "n_clusters", d["num_clusters"])
    out.option("dataset.num_dims", "dataset", "n_dims", d["num_dims"])
    if not isinstance(d["equal_clusters"], bool):
        raise TypeError(f"dataset.equal_clusters{out.where} must be true or false, got "
                        f"{d['equal_clusters']!r}")
    out.extras["equal_sizes"] = d["equal_clusters"]
    size = d["min_clust_size"]
    # HAWKS 0.2.0 (dataset.py) replaces a minimum it cannot use by 2, with a warning
    why = None
    if size is None:
        why = "null"
    elif isinstance(size, bool) or not isinstance(size, numbers.Real):
        raise TypeError(f"dataset.min_clust_size{out.where} must be an integer, got {size!r}")
    elif size > n:
        why = f"more than num_examples = {n}"
    elif size > n / k:
        why = f"more than num_examples / num_clusters = {n / k:g}"
    elif not isinstance(size, numbers.Integral):
        why = "not an integer"
    if why is not None:
        out.notes.append(f"dataset.min_clust_size = {json.dumps(size)} is {why}: HAWKS 0.2.0 "
                         "uses 2 instead, and so does hawks-deap")
        size = 2
    out.extras["min_size"] = check_int(f"dataset.min_clust_size{out.where}", size, minimum=1)


def _algorithm(role: str, spec: Mapping[str, Any], out: _Point) -> str:
    key = f"objectives.{role}"
    if spec.get("algorithm") is None:
        raise ValueError(f"{key}.algorithm{out.where} is missing: name the clustering "
                         "algorithm (kmeans, gmm, single_linkage, average_linkage)")
    name = ALGORITHM_NAMES.get(_normalised(f"{key}.algorithm", spec["algorithm"], out.where))
    if name is None:
        raise _refuse(f"{key}.algorithm", spec["algorithm"], out.where,
                      '"kmeans", "gmm", "single_linkage", "average_linkage"')
    if spec.get("kwargs") not in (None, {}):
        raise _refuse(f"{key}.kwargs", spec["kwargs"], out.where,
                      "null or {} (the registered algorithms take no arguments from a config)")
    multiplier = spec.get("k_multiplier")
    if multiplier in (None, 1) and not isinstance(multiplier, bool):
        return name
    if multiplier == 2 and not isinstance(multiplier, bool) and name.endswith("-linkage"):
        return f"{name}-2k"
    raise _refuse(f"{key}.k_multiplier", multiplier, out.where,
                  "null or 1 (K clusters), 2 for single_linkage and average_linkage (2K)")


def _objectives(o: Mapping[str, Any], mode: str, out: _Point) -> None:
    versus_keys = [k for k in ("winner", "loser", "scoring_method") if k in o]
    if mode == "index":
        if versus_keys:
            raise ValueError(f"objectives.{versus_keys[0]}{out.where} is a Versus-mode "
                             'objective, but hawks.mode is "single"; set hawks.mode = '
                             '"versus" or remove it')
        target = out.option("objectives.silhouette.target", "objective", "target",
                            o["silhouette"].get("target"))
        out.number("objectives.silhouette.target", target, low=-1.0, high=1.0)  # its range
        out.option("objectives.silhouette", "objective", "index", "silhouette")
        out.option("objectives.silhouette", "objective", "metric", "sqeuclidean")
        return
    if "silhouette" in o:
        raise ValueError(f"objectives.silhouette{out.where} is an Index-mode objective, but "
                         'hawks.mode is "versus"; remove it')
    for role in ("winner", "loser"):
        if role not in o:
            raise ValueError(f"objectives.{role}{out.where} is missing: Versus mode needs "
                             "objectives.winner and objectives.loser")
        out.option(f"objectives.{role}", "objective", role, _algorithm(role, o[role], out))
    out.option("objectives.scoring_method", "objective", "score", o.get("scoring_method", "ari"))


def _mean_mutation(g: Mapping[str, Any], mode: str, out: _Point) -> None:
    method = g["mut_method_mean"]

    def needs_target(hawks_name: str) -> bool:  # the operator's own declaration
        return mean_needs(MEAN_MUTATION_NAMES[hawks_name])[0]

    if method not in MEAN_MUTATION_NAMES or (needs_target(method) and mode != "index"):
        accepted = ", ".join(f'"{m}"' for m in MEAN_MUTATION_NAMES
                             if mode == "index" or not needs_target(m))
        raise _refuse("ga.mut_method_mean", method, out.where,
                      f"{accepted} (pso_informed needs a silhouette target: Index mode)")
    out.option("ga.mut_method_mean", "ga", "mean_mutation", MEAN_MUTATION_NAMES[method])
    kwargs: dict[str, Any] = {}
    for name, args in g["mut_args_mean"].items():
        if name != method:
            out.unmapped[f"ga.mut_args_mean.{name}"] = UNSELECTED
            continue
        for arg, value in args.items():
            key, ours = f"ga.mut_args_mean.{name}.{arg}", MEAN_ARGS[name][arg]
            if ours == "dims":
                if value not in DIMS:
                    raise _refuse(key, value, out.where, '"each", "all"')
                kwargs[ours] = value
            else:
                kwargs[ours] = out.number(key, value, low=0.0 if ours in ("scale", "F") else None)
    try:  # as the operator will, before any run (e.g. low <= high, with its defaults)
        check_mutation_options(MEAN_MUTATION_NAMES[method], kwargs)
    except (TypeError, ValueError) as error:
        raise type(error)(f"ga.mut_args_mean.{method}{out.where} (our mean_kwargs "
                          f"{kwargs}): {error}") from None
    if kwargs:
        out.extras["mean_kwargs"] = kwargs


def _ga(g: Mapping[str, Any], mode: str, out: _Point) -> None:
    gens = g["num_gens"]
    if isinstance(gens, bool) or not isinstance(gens, numbers.Integral) or gens < 2:
        raise ValueError(f"ga.num_gens{out.where} must be an integer >= 2, got {gens!r}: HAWKS "
                         "counts the initial population as its first generation, and "
                         "hawks-deap runs num_gens - 1 generations after it")
    out.option("ga.num_gens", "ga", "generations", int(gens) - 1)
    size = out.option("ga.num_indivs", "ga", "population_size", g["num_indivs"])
    _mean_mutation(g, mode, out)
    if g["mut_method_cov"] != "haar":
        raise _refuse("ga.mut_method_cov", g["mut_method_cov"], out.where, '"haar"')
    if "power" in g["mut_args_cov"].get("haar", {}):
        power = out.number("ga.mut_args_cov.haar.power", g["mut_args_cov"]["haar"]["power"],
                           low=0.0)
        out.extras["cov_kwargs"] = {"power": power}
    for hawks_key, ours in (("mut_prob_mean", "p_mean"), ("mut_prob_cov", "p_cov")):
        value = g[hawks_key]
        if value == "length":
            continue  # 1/K: the default of `hawks_deap.evolve`
        if isinstance(value, str):
            raise _refuse(f"ga.{hawks_key}", value, out.where, '"length" (1/K) or a probability')
        out.extras[ours] = check_probability(f"ga.{hawks_key}{out.where}", value)
    if g["mate_scheme"] != "dv":
        raise _refuse("ga.mate_scheme", g["mate_scheme"], out.where,
                      '"dv" (means and covariances swapped independently; "cluster", which '
                      "swaps them together, has no counterpart)")
    out.option("ga.mate_prob", "ga", "p_crossover", g["mate_prob"])
    out.option("ga.prob_fitness", "ga", "p_f", g["prob_fitness"])
    elites = out.number("ga.elites", g["elites"], low=0.0)
    if int(size * elites):
        raise _refuse("ga.elites", g["elites"], out.where,
                      f"0, or below 1 / num_indivs = {1 / size:g} (no elites: stochastic ranking "
                      "of parents and offspring decides every survivor)")
    for key in ("initial_mean_upper", "initial_cov_upper"):
        out.extras[key] = out.number(f"ga.{key}", g[key], low=0.0, low_open=True)
    if _normalised("ga.environ_selection", g["environ_selection"], out.where) not in (
            "sr", "stochasticranking"):
        raise _refuse("ga.environ_selection", g["environ_selection"], out.where, '"sr"')
    if _normalised("ga.parent_selection", g["parent_selection"], out.where) not in (
            "binary", "binarytournament", "tournament"):
        raise _refuse("ga.parent_selection", g["parent_selection"], out.where,
                      '"tournament" or "binary" (a binary tournament on rank; "tournament-'
                      'fitness" has no counterpart)')


def _constraints(c: Mapping[str, Any], out: _Point) -> None:
    # (HAWKS' name, measure, the option of its usual side, that side, high bound)
    for name, measure, side, high in (("overlap", "overlap", "max", 1.0),
                                      ("eigenval_ratio", "eccentricity", "min", None)):
        key, bound = f"constraints.{name}", c[name]
        if bound["limit"] not in ("upper", "lower"):
            raise _refuse(f"{key}.limit", bound["limit"], out.where, '"upper", "lower"')
        limit = "max" if bound["limit"] == "upper" else "min"
        low = 0.0 if measure == "overlap" else 1.0
        threshold = out.number(f"{key}.threshold", bound["threshold"], low=low, high=high)
        other = "min" if side == "max" else "max"
        out.option(key, "constraints", f"{side}_{measure}", threshold if limit == side else None)
        if limit == other:
            out.extras[f"{other}_{measure}"] = threshold


def _translate(cfg: Mapping[str, Any], mode: str, where: str) -> _Point:
    out = _Point(where)
    _dataset(cfg["dataset"], out)
    _objectives(cfg.get("objectives", {}), mode, out)
    _ga(cfg["ga"], mode, out)
    _constraints(cfg["constraints"], out)
    return out


def translate_hawks_config(data: Mapping[str, Any], *, path: str | None = None
                           ) -> HawksConfig:
    """Check and translate a parsed HAWKS config (see `load_hawks_config`).

    Parameters
    ----------
    data : mapping
        The parsed JSON object.
    path : str, optional
        The file it came from: named in messages, kept as `HawksConfig.path`.
    """
    where = f" in {path}" if path else ""
    axes: dict[str, list[Any]] = {}
    _check_keys(data, KNOWN_KEYS, "", where, axes)
    mode_given = data.get("hawks", {}).get("mode", "single")
    defaults = {k: v for k, v in HAWKS_DEFAULTS.items()
                if k != "objectives" or mode_given == "single"}
    merged = _with_defaults(data, defaults)
    mode, runs, seed, returns = _hawks_section(merged["hawks"], where)
    check_size(math.prod(len(v) for v in axes.values()), runs, runs_name="hawks.num_runs",
               where=where)
    points: list[HawksPoint] = []
    unmapped: dict[str, str] | None = None
    notes: list[str] = []
    seen: dict[str, int] = {}
    for combo in itertools.product(*axes.values()):
        cfg = copy.deepcopy(merged)
        grid_values = dict(zip(axes, combo, strict=True))
        for key, value in grid_values.items():
            _set(cfg, key, value)
        label = f" (configuration {len(points)}: {_short(grid_values)})" if axes else ""
        out = _translate(cfg, mode, where + label)
        out.option("hawks.comparison", "ga", "returns", returns)
        if seed is not None:
            out.file_values.setdefault("ga", {})["seed"] = seed
        signature = json.dumps([out.file_values, out.extras], sort_keys=True)
        if signature in seen:
            raise ValueError(f"configurations {seen[signature]} and {len(points)}{where} are the "
                             "same run in hawks-deap: they differ only in keys it does not use; "
                             "remove those lists")
        seen[signature] = len(points)
        points.append(HawksPoint(grid_values, out.file_values, out.extras))
        found = {k: v for k, v in out.unmapped.items() if _has(data, k)}
        unmapped = found if unmapped is None else {k: v for k, v in unmapped.items()
                                                   if k in found}
        notes += [n for n in out.notes if n not in notes]
    fixed = {k: why for k, why in UNMAPPED.items() if _has(data, k)}
    if seed is None:
        notes.insert(0, "hawks.seed_num is null (HAWKS seeds from the clock): hawks-deap uses "
                        "seed 0")
    return HawksConfig(path=path, mode=mode, runs=runs, seed=seed, points=tuple(points),
                       grid=axes, unmapped={**fixed, **(unmapped or {})}, notes=tuple(notes),
                       merged=merged)


def _short(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in values.items())


# --------------------------------------------------------------------------- commands


def run_settings(hawks: HawksConfig, command: str,
                 cli_values: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The resolved settings of ``generate`` or ``versus`` run from a HAWKS config.

    Parameters
    ----------
    hawks : HawksConfig
        From `load_hawks_config`; one configuration and one run.
    command : {"generate", "versus"}
        Must be the config's mode.
    cli_values : mapping, optional
        Options given on the command line (`hawks_deap.settings.config.cli_values`): they win.

    Returns
    -------
    dict
        `hawks_deap.settings.config.resolve`'s settings plus the point's extras.

    Raises
    ------
    ValueError
        For another mode's config, a grid or several runs (both are suites).
    """
    file = hawks.path or "FILE.json"
    if command != hawks.command:
        raise ValueError(f'hawks.mode = "{"single" if hawks.mode == "index" else "versus"}"'
                         f"{hawks.where} is {hawks.mode.title()} mode: run it with "
                         f"`hawks-deap {hawks.command} --config {file} --out DIR`")
    if len(hawks.points) > 1:
        lists = ", ".join(hawks.grid)
        raise ValueError(f"{hawks.path or 'the HAWKS config'} is a grid of "
                         f"{len(hawks.points)} configurations (lists in {lists}): run it with "
                         f"`hawks-deap suite {file} --out DIR`")
    if hawks.runs != 1:
        raise ValueError(f"hawks.num_runs = {hawks.runs}{hawks.where}: {command} makes one "
                         f"run; run them all with `hawks-deap suite {file} --out DIR`")
    point = hawks.points[0]
    values = config.resolve(command, point.file_values, cli_values)
    given = cli_values or {}
    # the options given win over the file here too (e.g. --min-size over
    # dataset.min_clust_size, which the translation keeps beside the file's values)
    extras = {key: value for key, value in _extras_for(point, values["mean_mutation"]).items()
              if key not in given}
    return {**values, **extras}


def _extras_for(point: HawksPoint, mean_mutation: str) -> dict[str, Any]:
    """A point's extra settings for ``mean_mutation`` (mean arguments only for the file's own)."""
    extras = dict(point.extras)
    if mean_mutation != point.file_values["ga"]["mean_mutation"]:
        extras.pop("mean_kwargs", None)
    return extras


def hawks_suite(hawks: HawksConfig, *, preset: str | None = None,
                ga: Mapping[str, Any] | None = None) -> Suite:
    """The suite of a HAWKS config: its grid, ``num_runs`` runs each, seed ``seed_num``.

    Every configuration is checked (a problem built) before any run, as
    `hawks_deap.campaign.suite.load_suite` does; each run's metadata records the source.

    Parameters
    ----------
    hawks : HawksConfig
        From `load_hawks_config`.
    preset : str, optional
        Every configuration's ``[ga] preset`` (``hawks-deap suite FILE.json --preset
        NAME``), e.g. ``"hawks-tevc"`` for the clustering settings of the paper's
        analysis, which a HAWKS config cannot express; ``ga``'s own must agree.
    ga : mapping, optional
        Other ``[ga]`` settings (validated; not ``seed`` nor ``n_jobs``) of every
        configuration over the config's own, e.g. ``{"returns": "best-feasible"}`` to return
        our default dataset instead of HAWKS' final pick (``hawks.comparison``). Both
        are part of the suite's identity.
    """
    if preset is not None and (ga or {}).get("preset", preset) != preset:
        raise ValueError(f"hawks_suite: preset={preset!r} disagrees with ga={ga!r}; give one")
    ga = {**(ga or {}), **({} if preset is None else {"preset": preset})}
    for key in ("seed", "n_jobs"):  # (a suite's own: hawks.seed_num, workers)
        if key in ga:
            raise ValueError(f"hawks_suite: ga may not set {key!r} (a suite derives each "
                             "run's seed from hawks.seed_num, and runs in parallel by its "
                             "workers); got ga={ga!r}")
    if ga:  # named as a [ga] table of a file would be, before any configuration is built
        ga = config.validate_config({"ga": ga}, command=hawks.command,
                                    source="hawks_suite(ga=...)")["ga"]
    configurations, keyed = [], []
    for i, point in enumerate(hawks.points):
        file_values = point.file_values
        if ga:
            file_values = {**file_values, "ga": {**file_values.get("ga", {}), **ga}}
        extras = _extras_for(point, file_values["ga"]["mean_mutation"])
        configurations.append(checked_configuration(hawks.command, file_values, extras,
                                                    i, _short(point.hawks), hawks.where))
        keyed.append(key_values(hawks.command, file_values, extras))
    # (a folder resumes only the same suite); without them the description stays as
    # suites written before these options had it
    grid: dict[str, Any] = {"hawks": hawks.merged, **ga}
    return Suite(mode=hawks.mode, runs=hawks.runs, seed=0 if hawks.seed is None else hawks.seed,
                 configurations=configurations, grid=grid,
                 metadata={"settings_source": hawks.settings_source()},
                 runs_keys=(("runs",), ("grid", "hawks", "hawks", "num_runs")),
                 key_configurations=keyed)
