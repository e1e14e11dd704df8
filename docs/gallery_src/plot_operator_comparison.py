# ruff: noqa: D205, D400  (sphinx-gallery: the docstring starts with an underlined title)
"""
Mean-mutation operators on a tiny problem
=========================================

The five mean mutations (supplement S-II) on the same small Index-mode problem and the
same seeds: the best distance to the target silhouette per generation, averaged over
three runs. A miniature of ``examples/operator_study.py`` (30 runs of 100 generations
per scenario).
"""

import matplotlib.pyplot as plt
import numpy as np

import hawks_deap as hd

OPERATORS = ["gaussian", "rails", "pso", "pso-informed", "de"]
problem = hd.IndexProblem(n_samples=150, n_clusters=3, n_dims=2, target=0.8,
                          constraints=[hd.Overlap(max=0.1)])

curves = {}
for operator in OPERATORS:
    runs = []
    for seed in range(3):
        result = hd.evolve(problem, population_size=6, generations=8, seed=seed,
                           mean_mutation=operator)
        runs.append(np.minimum.accumulate(result.logbook.select("fitness_best")))
    curves[operator] = np.mean(runs, axis=0)
    print(f"{operator:>13}: final best |s_t - s| {curves[operator][-1]:.4f}")

# %%
# Lower is better: the distance of the best individual's silhouette to the target 0.8.

fig, ax = plt.subplots(figsize=(7, 4.5))
for operator, curve in curves.items():
    ax.plot(np.arange(len(curve)), curve, marker="o", label=operator)
ax.set_xlabel("generation")
ax.set_ylabel("best |target - silhouette| (mean of 3 runs)")
ax.set_yscale("log")
ax.legend(title="mean mutation")
fig.tight_layout()
plt.show()
