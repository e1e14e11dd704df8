# ruff: noqa: D205, D400  (sphinx-gallery: the docstring starts with an underlined title)
"""
A Versus duel: GMM against single linkage
=========================================

Versus mode evolves a dataset on which one clustering algorithm beats another: here the
Gaussian mixture against single linkage, scored by the adjusted Rand index (ARI), on 200
points in 5 generations. `plot_versus` draws the true clusters and both partitions.
"""

import matplotlib.pyplot as plt

import hawks_deap as hd
from hawks_deap.analysis import plotting

problem = hd.VersusProblem("gmm", "single-linkage", n_samples=200, n_clusters=3, n_dims=2,
                           constraints=[hd.Overlap(max=0.1)])
result = hd.evolve(problem, population_size=6, generations=5, p_f=0.75, seed=0)
record = result.best.record
print(f"gap {result.best.fitness.values[0]:.3f}: GMM ARI {record['winner_score']:.3f}, "
      f"single linkage ARI {record['loser_score']:.3f}")

# %%
# The partitions the two algorithms found on the best dataset, as the run scored them.

winner_labels, loser_labels = problem.partitions(result.best)
dataset = result.best_dataset()
plotting.plot_versus(dataset.X, dataset.y, winner_labels, loser_labels, winner="gmm",
                     loser="single-linkage", winner_score=record["winner_score"],
                     loser_score=record["loser_score"])
plt.show()
