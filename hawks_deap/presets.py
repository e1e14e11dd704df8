"""Named presets: the settings of a published study, one switch away.

A preset is, for each command, a set of setting values (keys of
`hawks_deap.settings.model.RunSettings`), and clustering-algorithm settings, under one
name. It changes only the settings it lists; anything given in a config file or on the
command line still wins over it, and the defaults fill the rest. Runs record the preset
and the values it set in their metadata. A suite run's seed does not depend on what a
preset sets (`hawks_deap.campaign.seed_keys`): the preset's name enters the key, so a
preset can be corrected without moving any seed.

``"hawks-tevc"``: the HAWKS paper (Shand et al., IEEE TEVC 2021) as run by HAWKS 0.2.0
(``../shared/anchors/HAWKS-0.2.0.md`` and its ``hawks-tevc-configs/``):

- Versus mode (``versus``), the paper's Versus experiment: N = 2000, K = 5, D = 2,
  overlap <= 0 (``max_overlap = 0``), eigenvalue ratio <= 20 (``max_eccentricity =
  20``), clusters of at least 5 points, initial means in U(0, 10)
  (``initial_mean_upper = 10``), P_f = 0.75 (also Versus mode's default). The
  generations and the population stay ours (100 and 10; HAWKS 0.2.0's default config
  has 50 generations, the paper does not state them for Versus mode).
- Index mode (``generate``): the paper's grid defaults are ours already (clusters of at
  least 10 points, initial means in U(0, 2), the PSO mean operator, P = 10, G = 100,
  P_f = 0.5, crossover 0.7); its grid values (N, K, D, the target, the bounds) are a
  suite's, not a preset's.

- ``returns = "final-fittest"``: a run returns the final population's individual of best
  fitness, its penalty ignored (HAWKS 0.2.0's final pick; the paper, section III, "the
  individual with the best fitness"). Our default returns the best feasible individual
  seen during the run, because the paper's pick can return a dataset that violates its
  constraints while feasible ones exist (HAWKS 0.2.0 defect 3).
- Clustering settings of its analysis code (``hawks/analysis.py``): K-Means++ with 10
  initialisations and the GMM with 3 (`ALGORITHM_PRESETS`). Our
  defaults are scikit-learn's current ones (one start each), which are faster and make a
  Versus loser's ARI depend on its seed rather than on the dataset (BENCHMARKS.md).
- The eccentricity constraint stays ``eccentricity_of = "any"`` (the largest ratio over
  the clusters: Eq. 6 and HAWKS 0.2.0's code, which produced the paper's figures). The
  paper's text asks for "all clusters" (the smallest ratio); ``eccentricity_of = "all"``
  gives that, with or without the preset.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from hawks_deap._util.validation import check_choice

__all__ = ["ALGORITHM_PRESETS", "PRESETS", "check_preset", "preset_settings"]

#: Setting values of each preset, by command then by setting key
#: (`hawks_deap.settings.model.RunSettings`).
PRESETS: Mapping[str, Mapping[str, Mapping[str, Any]]] = MappingProxyType({
    "hawks-tevc": MappingProxyType({
        "generate": MappingProxyType({"returns": "final-fittest"}),
        # (no paper setup of its own: HAWKS 0.2.0's returned individual, as Index mode)
        "target": MappingProxyType({"returns": "final-fittest"}),
        "versus": MappingProxyType({
            "returns": "final-fittest", "n_samples": 2000, "n_clusters": 5, "n_dims": 2,
            "max_overlap": 0.0, "max_eccentricity": 20.0, "min_size": 5,
            "initial_mean_upper": 10.0, "p_f": 0.75}),
    }),
})

#: Clustering settings of each preset: registered name -> keyword arguments that replace
#: the library call's own (`hawks_deap.clustering.get_algorithm`). ``"hawks-tevc"``: the
#: original HAWKS analysis (HAWKS 0.2.0), K-Means++ with 10 initialisations, the GMM with 3.
ALGORITHM_PRESETS: Mapping[str, Mapping[str, Mapping[str, Any]]] = MappingProxyType({
    "hawks-tevc": MappingProxyType({"kmeans++": MappingProxyType({"n_init": 10}),
                                    "gmm": MappingProxyType({"n_init": 3})}),
})


def check_preset(preset: object) -> str | None:
    """Return ``preset`` if it is None or the name of a preset; else raise.

    Parameters
    ----------
    preset : str or None
        A name in `PRESETS` (``"hawks-tevc"``), or None for no preset.

    Returns
    -------
    str or None
        ``preset``, unchanged.

    Raises
    ------
    TypeError
        If ``preset`` is neither a string nor None.
    ValueError
        For an unknown name, listing the valid ones.

    Examples
    --------
    >>> check_preset("hawks-tevc")
    'hawks-tevc'
    >>> check_preset(None) is None
    True
    """
    if preset is None:
        return None
    if not isinstance(preset, str):
        raise TypeError(f"preset must be a string or None, got {preset!r} "
                        f"({type(preset).__name__}); valid: "
                        + ", ".join(repr(p) for p in PRESETS))
    return check_choice("preset", preset, tuple(PRESETS))


def preset_settings(preset: str | None, command: str) -> dict[str, Any]:
    """The setting values a preset sets for a command (empty for None).

    Parameters
    ----------
    preset : str or None
        A name in `PRESETS`, or None.
    command : str
        The command whose settings are asked for (``"generate"``, ``"versus"``).

    Returns
    -------
    dict
        A new dict, setting key -> value (`PRESETS`); clustering settings are in
        `ALGORITHM_PRESETS`.

    Raises
    ------
    TypeError, ValueError
        As `check_preset`, for a preset that is neither None nor a known name; a
        ``ValueError`` for an unknown command.

    Examples
    --------
    >>> preset_settings("hawks-tevc", "versus")["n_samples"]
    2000
    >>> preset_settings(None, "generate")
    {}
    """
    if preset is None:
        return {}
    check_preset(preset)
    by_command = PRESETS[preset]
    if command not in by_command:
        raise ValueError(f"preset {preset!r} has no settings for {command!r} (it has for "
                         f"{', '.join(by_command)})")
    return dict(by_command[command])
