"""NSGA-II and NSGA-III swaps, composed the way a DEAP user builds a toolbox.
==========================================================================

The same Index-mode problem (target silhouette 0.2, no overlap wanted, eccentric
clusters wanted) is made multi-objective with ``problem.as_multiobjective()``: objectives
(``|s_t - s|``, overlap, eccentricity) with weights (-1, -1, +1). Then:

1. NSGA-II by hand: ``make_toolbox`` + ``select = deap.tools.selNSGA2`` +
   ``deap.algorithms.eaMuPlusLambda`` with a ``ParetoFront``.
2. NSGA-III by hand: ``select = hawks_deap.operators.sel_nsga3`` with DEAP's
   ``uniform_reference_points`` (DEAP's own ``selNSGA3`` works too, but breaks ties with
   numpy's global random state; ``sel_nsga3`` takes a Generator, so runs repeat).
3. The one-liners: ``hd.evolve(problem, algorithm="nsga2" | "nsga3")``.

    python examples/nsga.py [--quick]
"""

from __future__ import annotations

import argparse
import random

import numpy as np
from deap import algorithms, tools

import hawks_deap as hd
from hawks_deap.genome.genotype import genotype_equal


def make_problem(n_samples: int) -> hd.IndexProblem:
    return hd.IndexProblem(n_samples, 4, 2, target=0.2,
                           constraints=[hd.Overlap(max=0.0), hd.Eccentricity(min=10.0)])


def by_hand(selection: str, seed: int, generations: int, population_size: int,
            n_samples: int) -> tools.ParetoFront:
    problem = make_problem(n_samples).as_multiobjective()
    # algorithm= says the problem is multi-objective (the default, "hawks", refuses it: its
    # stochastic ranking would compare the objectives lexicographically); the select below
    # replaces the registered one to show the composition
    toolbox = hd.make_toolbox(problem, seed=seed, algorithm=selection)
    if selection == "nsga2":
        toolbox.register("select", tools.selNSGA2)
    else:
        ref_points = tools.uniform_reference_points(nobj=problem.n_objectives, p=4)
        toolbox.register("select", hd.operators.sel_nsga3, rng=np.random.default_rng(seed),
                         ref_points=ref_points)
    random.seed(seed)  # eaMuPlusLambda draws from Python's random module
    population = toolbox.population(n=population_size)
    front = tools.ParetoFront(similar=genotype_equal)
    algorithms.eaMuPlusLambda(population, toolbox, mu=population_size,
                              lambda_=population_size, cxpb=0.6, mutpb=0.4,
                              ngen=generations, halloffame=front, verbose=False)
    return front


def show(title: str, front, names) -> None:
    print(f"{title}: {len(front)} non-dominated datasets")
    print("  " + "  ".join(f"{n:>12}" for n in names))
    for ind in sorted(front, key=lambda i: i.fitness.values)[:8]:
        print("  " + "  ".join(f"{v:12.4f}" for v in ind.fitness.values))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny run for the test suite")
    args = parser.parse_args()
    gens, pop, n = (3, 8, 200) if args.quick else (60, 24, 1000)
    names = make_problem(n).as_multiobjective().objective_names

    show("NSGA-II (toolbox by hand)", by_hand("nsga2", 0, gens, pop, n), names)
    show("NSGA-III (toolbox by hand)", by_hand("nsga3", 0, gens, pop, n), names)
    for algorithm in ("nsga2", "nsga3"):
        result = hd.evolve(make_problem(n), algorithm=algorithm, population_size=pop,
                           generations=gens, seed=0)
        show(f"hd.evolve(algorithm={algorithm!r})", result.pareto_front, names)


if __name__ == "__main__":
    main()
