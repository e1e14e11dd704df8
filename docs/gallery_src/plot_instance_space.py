# ruff: noqa: D205, D400  (sphinx-gallery: the docstring starts with an underlined title)
"""
An instance space of a handful of datasets
==========================================

Nine small datasets evolved at three silhouette targets, measured with the paper's
seven problem features and projected to two dimensions (standardised, then PCA), as
the paper's Fig. 2 does; coloured by their target, then by the clustering algorithm
that scores best on each.
"""

import matplotlib.pyplot as plt

import hawks_deap as hd
from hawks_deap.analysis import features, plotting

collection, sources = [], []
for target in (0.2, 0.5, 0.8):
    for seed in range(3):
        problem = hd.IndexProblem(120, 3, 2, target=target,
                                  constraints=[hd.Overlap(max=0.3)])
        collection.append(hd.evolve(problem, population_size=4, generations=3,
                                    seed=seed).best_dataset())
        sources.append(f"target {target}")

table = features.features_table(collection)
space = features.InstanceSpace().fit(table)
coords = space.transform(table)
print(f"PCA keeps {100 * space.explained_variance_ratio_.sum():.0f}% of the variance")

# %%
# The ARI of the paper's clustering algorithms on each dataset, and the best one.

performance = features.performance_table(collection, seed=0)
best = features.best_algorithms(performance)

fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
plotting.plot_instance_space(coords, sources, space=space, ax=axes[0],
                             legend_title="source", title="by silhouette target")
plotting.plot_instance_space(coords, best, space=space, ax=axes[1],
                             legend_title="best ARI", title="by best algorithm")
fig.tight_layout()
plt.show()
