"""Fingerprints of seeded Index-mode runs: the byte-identity check of refactorings.

Each case is one seeded ``evolve`` run; its fingerprint is the SHA-256 of the best
dataset's bytes (X and y) and of the final population (every gene's arrays and every
fitness value, in order). The cases cover every mean mutation, both silhouette metrics,
with and without an eccentricity constraint, NSGA-II, and the sizes that send the
evaluator down each of its paths (KD-trees in 2-D, matrix products in 20-D, the
per-gene centroid blocks and slot-by-slot reduction of large N K, the two-dimensional
shape certificates, a whole-dataset overlap pass).

    python benchmarks/seeded_reference.py --write tests/data/seeded_reference.json
    python benchmarks/seeded_reference.py --check tests/data/seeded_reference.json [--slow]

``tests/test_seeded_reference.py`` runs the check (the slow cases under ``-m slow``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from typing import Any

MEAN_MUTATIONS = ("gaussian", "rails", "pso", "pso-informed", "de")


def _cases() -> dict[str, dict[str, Any]]:
    base = dict(n_samples=400, n_clusters=4, n_dims=2, target=0.5)
    cases: dict[str, dict[str, Any]] = {}
    for mean in MEAN_MUTATIONS:
        for metric in ("sqeuclidean", "euclidean"):
            for ecc in (False, True):
                name = f"{mean}-{metric}-{'ecc' if ecc else 'plain'}"
                cases[name] = dict(cfg=base, metric=metric, ecc=ecc, mean=mean,
                                   generations=12, slow=False)
    cases["nsga2"] = dict(cfg=base, metric="sqeuclidean", ecc=True, mean="pso",
                          generations=12, algorithm="nsga2", slow=False)
    # evaluator paths: matrix products (D > 8), mid dimension, many small clusters
    cases["dense-d20"] = dict(cfg=dict(n_samples=600, n_clusters=6, n_dims=20, target=0.9),
                              metric="sqeuclidean", ecc=False, mean="pso", generations=10,
                              slow=False)
    cases["dense-d20-euclidean"] = dict(
        cfg=dict(n_samples=600, n_clusters=6, n_dims=20, target=0.9), metric="euclidean",
        ecc=True, mean="rails", generations=10, slow=False)
    cases["mid-d6"] = dict(cfg=dict(n_samples=800, n_clusters=8, n_dims=6, target=0.3),
                           metric="sqeuclidean", ecc=False, mean="de", generations=10,
                           slow=False)
    # configs a and b of bench_index (centroid blocks kept per gene: N K D > 2^18)
    cases["config-a"] = dict(cfg=dict(n_samples=2000, n_clusters=5, n_dims=2, target=0.5),
                             metric="sqeuclidean", ecc=False, mean="pso", generations=30,
                             slow=True)
    cases["config-b"] = dict(cfg=dict(n_samples=1000, n_clusters=10, n_dims=20, target=0.9),
                             metric="sqeuclidean", ecc=False, mean="pso", generations=30,
                             slow=True)
    # N K > 2^18: the silhouette is reduced slot by slot
    cases["slotwise"] = dict(cfg=dict(n_samples=30_000, n_clusters=10, n_dims=2,
                                      target=0.5),
                             metric="sqeuclidean", ecc=False, mean="pso", generations=4,
                             slow=True)
    return cases


CASES = _cases()


def fingerprint(name: str, seed: int = 0) -> dict[str, str]:
    """The fingerprint of one case (hex digests of the best dataset and the population)."""
    import hawks_deap as hd

    spec = CASES[name]
    constraints: list = [hd.Overlap(max=0.1)]
    if spec["ecc"]:
        constraints.append(hd.Eccentricity(min=1.0))
    problem = hd.IndexProblem(**spec["cfg"], metric=spec["metric"], constraints=constraints)
    result = hd.evolve(problem, population_size=10, generations=spec["generations"],
                       mean_mutation=spec["mean"], seed=seed,
                       algorithm=spec.get("algorithm", "hawks"))
    data = result.best_dataset()
    h_data = hashlib.sha256(data.X.tobytes() + data.y.tobytes())
    h_pop = hashlib.sha256()
    for ind in result.population:
        for gene in ind:
            for array in (gene.mean, gene.variances, gene.rotation):
                h_pop.update(array.tobytes())
        h_pop.update(repr(tuple(float(v) for v in ind.fitness.values)).encode())
    return {"dataset": h_data.hexdigest(), "population": h_pop.hexdigest()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="JSON")
    group.add_argument("--check", metavar="JSON")
    parser.add_argument("--slow", action="store_true", help="include the slow cases")
    args = parser.parse_args()
    names = [n for n, spec in CASES.items() if args.slow or args.write or not spec["slow"]]
    if args.write:
        out = {name: fingerprint(name) for name in names}
        with open(args.write, "w") as fh:
            json.dump(out, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"wrote {len(out)} fingerprints to {args.write}")
        return 0
    with open(args.check) as fh:
        expected = json.load(fh)
    bad = 0
    for name in names:
        got = fingerprint(name)
        same = got == expected[name]
        bad += not same
        print(f"{name:32s} {'same' if same else 'DIFFERENT'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
