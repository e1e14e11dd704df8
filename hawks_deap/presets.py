"""Named presets: the settings of a published study, one switch away.

A preset is a set of setting values and clustering-algorithm settings under one name.
It changes only the settings it lists; anything given in a config file or on the command
line still wins over it, and the defaults fill the rest. Runs record the preset and the
values it set in their metadata.

``"hawks-tevc"``: the HAWKS paper (Shand et al., IEEE TEVC 2021) as run by HAWKS 0.2.0
(``../shared/anchors/HAWKS-0.2.0.md``):

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

#: Setting values of each preset, by option key (`hawks_deap.settings.config.OPTIONS`).
PRESETS: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "hawks-tevc": MappingProxyType({"returns": "final-fittest"}),
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


def preset_settings(preset: str | None) -> dict[str, Any]:
    """The setting values a preset sets (empty for None).

    Parameters
    ----------
    preset : str or None
        A name in `PRESETS`, or None.

    Returns
    -------
    dict
        A new dict, option key -> value (`PRESETS`); clustering settings are in
        `ALGORITHM_PRESETS`.

    Raises
    ------
    TypeError, ValueError
        As `check_preset`, for a preset that is neither None nor a known name.
    """
    return dict(PRESETS[check_preset(preset)]) if preset is not None else {}
