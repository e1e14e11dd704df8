# ruff: noqa: D205, D400  (sphinx-gallery: the docstring starts with an underlined title)
"""
An Index-mode run and its convergence
=====================================

Evolve a small dataset whose (squared-Euclidean) silhouette is close to 0.5, with at
most 10% overlap and one cluster at least twice as long as it is wide; draw it with its
genes' covariance ellipses, and the run's fitness per generation.
"""

import matplotlib.pyplot as plt

import hawks_deap as hd
from hawks_deap.analysis import plotting

problem = hd.IndexProblem(n_samples=300, n_clusters=4, n_dims=2, target=0.5,
                          constraints=[hd.Overlap(max=0.1), hd.Eccentricity(min=2.0)])
result = hd.evolve(problem, population_size=8, generations=10, seed=0)
record = result.best.record
print(f"silhouette {record['index']:.3f} (target 0.5), overlap {record['overlap']:.3f}, "
      f"eccentricity {record['eccentricity']:.2f}, penalty {record['penalty']:.3g}")

# %%
# The dataset, and a sample five times larger drawn from the same genes
# (`Dataset.regenerate`).

dataset = result.best_dataset()
bigger = dataset.regenerate(1500, seed=1)
fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
plotting.plot_dataset(dataset, ax=axes[0], title="evolved, N=300")
plotting.plot_dataset(bigger, ax=axes[1], title="regenerated from the genes, N=1500")
fig.tight_layout()

# %%
# The convergence: fitness (distance to the target), index value and penalty per
# generation, from the run's DEAP logbook.

plotting.plot_convergence(result.logbook, target=0.5)
plt.show()
