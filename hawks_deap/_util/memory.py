"""Memory estimates checked before work starts: what cannot fit is refused with its figure.

The estimates are lower bounds (the arrays a task cannot do without), so a refusal is
certain to be right; a task that passes may still need more (caches, the evaluator's
budget).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["check_fits", "check_population_size", "check_processes", "fitting_processes",
           "human_bytes", "population_bytes", "run_bytes", "sample_bytes", "total_memory"]


def total_memory() -> int | None:
    """The machine's physical memory in bytes (None where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def human_bytes(n: float) -> str:
    """``n`` bytes as a short text (e.g. ``"1.6 TB"``)."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} PB"  # pragma: no cover - the loop returns


def run_bytes(n_samples: int, n_clusters: int, n_dims: int) -> int:
    """A lower bound on the memory of one run: its points and one genotype's matrices.

    Per point: the fixed draws, the points and the dataset (D values each), the
    overlap's search structures (about 3 D more) and the distances to the K centroids;
    per gene: its rotation and covariance (D x D each).
    """
    return 8 * (n_samples * (6 * n_dims + n_clusters + 4) + 2 * n_clusters * n_dims ** 2)


def sample_bytes(n_samples: int, n_dims: int) -> int:
    """A lower bound on the memory of drawing a dataset: draws, points and X."""
    return 8 * 3 * n_samples * n_dims


def population_bytes(population_size: int, n_clusters: int, n_dims: int = 1) -> int:
    """A lower bound on the memory of a population of unevaluated individuals.

    Every individual of the initial population has K genes of its own, each with a mean
    and variances (D values each), a rotation (D x D), those three arrays' headers (at
    least 96 bytes each) and the gene object (144 bytes), and the individual its list and
    fitness (440 bytes). Measured with tracemalloc (500 individuals of
    ``toolbox.population``, K = 2, D = 1 to K = 30, D = 50): 1.01-1.25 times this on
    Python 3.10 (about 2 % less late in a long test session: hence 440, not 460), 1.02-1.30
    on 3.11 and 3.13 (their objects are larger).
    """
    gene = 8 * (n_dims ** 2 + 2 * n_dims) + 3 * 96 + 144
    return population_size * (n_clusters * gene + 440)


def check_population_size(population_size: int) -> int:
    """Return ``population_size``, or raise ``ValueError`` if no population of it fits here.

    The bound of the smallest genes (2 clusters in 1 dimension): used by the settings
    schema, which knows no K or D (`hawks_deap.evolve` checks the problem's own).
    """
    check_fits(f"a population of {population_size} individuals (of 2 clusters in 1 "
               "dimension, the smallest)", population_bytes(population_size, 2), {})
    return population_size


def check_fits(what: str, nbytes: int, parameters: dict[str, Any]) -> None:
    """Raise ``ValueError`` if ``nbytes`` exceeds this machine's memory, naming the cause.

    The message starts with ``parameters`` as ``name=value`` pairs (when there are any).
    """
    total = total_memory()
    if total is not None and nbytes > total:
        named = ", ".join(f"{k}={v}" for k, v in parameters.items())
        raise ValueError(f"{named + ': ' if named else ''}{what} needs at least "
                         f"{human_bytes(nbytes)}, more than this machine's memory "
                         f"({human_bytes(total)})")


def fitting_processes(per_process: int) -> int | None:
    """How many processes needing ``per_process`` bytes each fit in this machine's memory.

    None when there is no bound (``per_process`` is 0, or the system does not say).
    """
    total = total_memory()
    return None if total is None or per_process <= 0 else total // per_process


def check_processes(name: str, processes: int, per_process: int, what: str) -> None:
    """Raise ``ValueError`` if ``processes`` tasks of ``per_process`` bytes cannot run at once.

    The message names ``name``, the figures and how many fit in this machine's memory.
    ``what`` names one task (e.g. ``"evaluations (each clusters with all pairwise
    distances)"``).
    """
    fit = fitting_processes(per_process)
    if fit is not None and processes > fit:
        raise ValueError(
            f"{name}={processes}: {processes} {what} at once, {human_bytes(per_process)} "
            f"each, need at least {human_bytes(processes * per_process)}, more than this "
            "machine's memory "
            f"({human_bytes(total_memory() or 0)}); at most {fit} fit, give {name}={max(fit, 1)}")
