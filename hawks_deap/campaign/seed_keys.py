"""The seed of each run of a suite, from an explicit, versioned key.

A run's seed derives from the suite seed, its configuration's key and the run index:
``SeedSequence(suite_seed, spawn_key=(*words, run))``, where ``words`` are the four
32-bit words of a BLAKE2b digest of the key's canonical JSON. The key (`seed_key`) of
version 1 holds every setting suites had when seeds were first recorded (`SEED_KEYS`),
and any setting added since only at a value other than its option's default. So adding
an option, a constraint or a mean operator (the recipes of ``docs/ARCHITECTURE.md``)
changes no seed of an existing grid (``tests/test_seed_key.py`` checks the seeds recorded
in ``tests/data/suite_seeds_v1.json``); ``suite.json`` and each run's metadata record the
key version (``seed_key``). A seed does not change when other configurations are added
to the grid, nor with the backend, the workers or the order of completion.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from hawks_deap._util.validation import int_seed
from hawks_deap.settings import config

__all__ = ["SEED_KEYS", "SEED_KEY_PRESETS", "SEED_KEY_VERSION", "configuration_values",
           "derive_seed", "key_values",
           "run_seeds", "seed_key"]

#: The key version of new suites (`SEED_KEYS`).
SEED_KEY_VERSION = 1

#: The settings each key version hashes whatever their values, by command: version 1,
#: the options of ``generate`` and ``versus`` when suite seeds were first recorded (and of
#: ``target`` when it was added), frozen
#: (``tests/data/suite_seeds_v1.json``). Any other setting enters only at a value other
#: than its option's default (`seed_key`).
SEED_KEYS: Mapping[int, Mapping[str, frozenset[str]]] = MappingProxyType({1: MappingProxyType({
    command: frozenset(("n_samples", "n_clusters", "n_dims", *objective, "max_overlap",
                        "min_eccentricity", "generations", "population_size", "mean_mutation",
                        "p_crossover", "p_f"))
    for command, objective in (("generate", ("target", "index", "metric")),
                               ("versus", ("winner", "loser", "score")),
                               # (added with Feature-target mode: no earlier seed moves)
                               ("target", ("targets", "weights", "scale", "space", "point")))
})})


#: What each preset set when a key version was frozen: the settings a grid does not state
#: hash the value its preset set then (or the option's default), whatever the preset sets
#: today. The preset's name enters the key like any setting off its default, so a preset
#: corrected later (version 1's ``hawks-tevc`` set ``returns`` only; it now sets the
#: paper's Versus setup) moves no seed of a grid that names it.
SEED_KEY_PRESETS: Mapping[int, Mapping[str, Mapping[str, Any]]] = MappingProxyType({
    1: MappingProxyType({"hawks-tevc": MappingProxyType({"returns": "final-fittest"})}),
})


def configuration_values(command: str, file_values: Mapping[str, Mapping[str, Any]],
                         extras: Mapping[str, Any] | None = None, *,
                         presets: Mapping[str, Mapping[str, Any]] | None = None
                         ) -> dict[str, Any]:
    """A suite configuration's settings: resolved, without ``seed`` and ``n_jobs``.

    `hawks_deap.settings.config.resolve`'s settings of ``file_values`` (each run's seed
    is derived; runs are the unit of parallelism), plus ``extras``.

    Parameters
    ----------
    command : {"generate", "versus", "target"}
        The configuration's command.
    file_values : mapping
        The configuration as a grid states it, ``{section: {key: value}}``.
    extras : mapping, optional
        Settings a translated HAWKS config adds.
    presets : mapping, optional
        What each preset sets (default: today's presets; `key_values` gives the key
        version's).

    Returns
    -------
    dict
    """
    values = {k: v for k, v in config.resolve(command, file_values, presets=presets).items()
              if k not in ("seed", "n_jobs")}
    values.update(extras or {})
    return values


def key_values(command: str, file_values: Mapping[str, Mapping[str, Any]],
               extras: Mapping[str, Any] | None = None,
               version: int = SEED_KEY_VERSION) -> dict[str, Any]:
    """The settings of a suite configuration that its seeds' key reads (`seed_key`).

    `configuration_values` with the presets of the key version (`SEED_KEY_PRESETS`)
    rather than today's.

    Parameters
    ----------
    command : {"generate", "versus", "target"}
        The configuration's command.
    file_values : mapping
        The configuration as a grid states it, ``{section: {key: value}}``.
    extras : mapping, optional
        Settings a translated HAWKS config adds.
    version : int
        A key version of `SEED_KEYS`.

    Returns
    -------
    dict
    """
    return configuration_values(command, file_values, extras,
                                presets=SEED_KEY_PRESETS[version])


def seed_key(values: Mapping[str, Any], command: str = "generate",
             version: int = SEED_KEY_VERSION) -> dict[str, Any]:
    """The settings of a configuration that its runs' seeds hash (`derive_seed`).

    Every setting of ``SEED_KEYS[version][command]``; any other one only when it differs
    from its option's default for ``command`` (one no option describes, as a HAWKS
    config's ``min_size``, whenever present). So an option added to
    `hawks_deap.settings.config.OPTIONS` at its default changes no seed, nor does stating it there.

    Parameters
    ----------
    values : mapping
        A configuration's settings (`hawks_deap.campaign.suite.Suite.configurations`).
    command : {"generate", "versus", "target"}
        The configuration's command (`hawks_deap.campaign.suite.Suite.command`).
    version : int
        A key version of `SEED_KEYS`.

    Returns
    -------
    dict
        The settings the digest covers.

    Raises
    ------
    ValueError
        For an unknown version or command.
    """
    if version not in SEED_KEYS or command not in SEED_KEYS[version]:
        commands = sorted({c for key in SEED_KEYS.values() for c in key})
        raise ValueError(f"no seed key version {version!r} for command {command!r}; "
                         f"versions: {sorted(SEED_KEYS)}, commands: {commands}")
    frozen = SEED_KEYS[version][command]
    options = {o.key: o for o in config.options_for(command, config.OPTIONS)}
    return {k: v for k, v in values.items()
            if k in frozen or k not in options or v != options[k].default_for(command)}


def _configuration_words(key: Mapping[str, Any]) -> list[int]:
    """The four 32-bit words of a configuration key's digest."""
    canonical = json.dumps(key, sort_keys=True, default=str).encode()
    digest = hashlib.blake2b(canonical, digest_size=16).digest()
    return [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]


def run_seeds(suite_seed: int, values: Mapping[str, Any], runs: Iterable[int], *,
              command: str = "generate", version: int = SEED_KEY_VERSION) -> list[int]:
    """The seeds of runs of one configuration (the digest computed once).

    Parameters
    ----------
    suite_seed : int
        The suite's ``[suite] seed``.
    values : mapping
        The configuration's settings.
    runs : iterable of int
        Run indices.
    command : {"generate", "versus", "target"}
        The configuration's command.
    version : int
        The key version (`SEED_KEYS`).

    Returns
    -------
    list of int
        One seed in ``[0, 2**32)`` per run index.
    """
    words = _configuration_words(seed_key(values, command, version))
    return [int_seed(suite_seed, *words, run) for run in runs]


def derive_seed(suite_seed: int, values: Mapping[str, Any], run: int, *,
                command: str = "generate", version: int = SEED_KEY_VERSION) -> int:
    """Seed of one run from the suite seed, the configuration's key and the run index.

    Parameters
    ----------
    suite_seed : int
        The suite's ``[suite] seed``.
    values : mapping
        The configuration's settings.
    run : int
        The run index.
    command : {"generate", "versus", "target"}
        The configuration's command.
    version : int
        The key version (`SEED_KEYS`).

    Returns
    -------
    int
        The seed ``hawks-deap generate --seed`` would need to repeat the run alone.
    """
    return run_seeds(suite_seed, values, (run,), command=command, version=version)[0]
