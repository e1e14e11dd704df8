"""Fidelity to the paper, Versus mode: Fig. 5 (30 runs per ordered pair), Fig. 5b and the
Versus row of Table S-II, as resumable suites (issue 20).

The paper's Versus runs (section IV-C): "the constraint parameters remain fixed", "the full
configurations ... can be found on GitHub". The constraints and operators come from HAWKS'
generic default file ``defaults_versus.json`` (``../shared/anchors/hawks-tevc-configs/``;
its own N = 1000, K = 10, G = 50 are not the paper's): overlap <= 0, eigenvalue ratio <= 20,
minimum cluster size 5, PSO-random mean mutation, p_c = 0.7, P = 10; with what the text sets
for these runs: N = 2000, K = 5, D = 2, G_max = 100 (written as HAWKS' ``num_gens = 100``,
which counts the initial population as the first generation: 99 generations after it; the
Index re-run runs 100 after it), P_f = 0.75, initial means in U(0, 10). ``versus --preset
hawks-tevc`` gives this setup for a single run. All 12 ordered pairs of average-linkage,
GMM, K-Means++ and single-linkage, 30 runs each. One suite per winner, each a HAWKS config
written to ``OUT/<winner>.json`` and run as ``hawks-deap suite OUT/<winner>.json --preset
hawks-tevc --out OUT/<winner>`` does (every finished run is saved and listed in its summary
at once; rerun to resume), under ``--preset`` (default ``hawks-tevc``: K-Means++ 10 starts,
GMM 3 starts, the final population's best fitness returned, as the config's ``comparison:
fitness``) or ``--preset none`` (ours: one start each, the best feasible dataset seen
returned).

The report gives, per pair, the winner's and loser's ARI on the returned dataset (the
run's own scores, in its metadata) and their gap (Fig. 5a); the Fig. 5a diagonal (mean
and sd of each algorithm's ARI as winner and as loser) and, as in Fig. 5b, the same for
the stochastic algorithms re-run on each dataset with other initialisations; the Versus
datasets' problem features (Table S-II).

    python benchmarks/fidelity_versus.py run    --out fidelity-versus --workers 2 [--runs 30]
        [--winners gmm]   (one suite; four such commands side by side)
    python benchmarks/fidelity_versus.py report --out fidelity-versus
    python benchmarks/fidelity_versus.py initial --out fidelity-versus-initial [--datasets 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

import hawks_deap as hd
from hawks_deap.analysis.features import FEATURE_NAMES, problem_features
from hawks_deap.campaign import hawks_json as hj
from hawks_deap.campaign import suite as hs
from hawks_deap.campaign.summary import summary_rows
from hawks_deap.clustering import get_algorithm
from hawks_deap.metrics import adjusted_rand_index

ALGORITHMS = ("average-linkage", "gmm", "kmeans++", "single-linkage")
STOCHASTIC = ("gmm", "kmeans++")
#: The names HAWKS' configs give them.
HAWKS_NAMES = {"average-linkage": "average_linkage", "gmm": "gmm", "kmeans++": "kmeans",
               "single-linkage": "single_linkage"}
CONFIG = (Path(__file__).resolve().parents[2] / "shared" / "anchors" / "hawks-tevc-configs"
          / "defaults_versus.json")
#: The paper's Table S-II, HAWKS (Versus) row, in `FEATURE_NAMES` order (the seed text lost
#: the last standard deviation).
PAPER_TABLE_S2 = ("0.144 +- 0.175", "2.000 +- 0.000", "2.551 +- 1.309", "0.825 +- 0.074",
                  "5.000 +- 0.000", "0.712 +- 0.188", "0.300 +- ?")


def versus_config(config: Path, winner: str, runs: int, quick: bool) -> dict:
    """The paper's Versus config for one winner against the three others (a grid)."""
    data = json.loads(config.read_text(encoding="utf-8"))
    data["hawks"].update(num_runs=runs, seed_num=0)
    data["objectives"]["winner"]["algorithm"] = HAWKS_NAMES[winner]
    data["objectives"]["loser"]["algorithm"] = [HAWKS_NAMES[a] for a in ALGORITHMS
                                                if a != winner]
    data["dataset"].update(num_examples=120 if quick else 2000, num_clusters=5, num_dims=2)
    data["ga"].update(num_gens=3 if quick else 100, prob_fitness=0.75, initial_mean_upper=10.0)
    return data


def versus_suite(path: Path, preset: str | None) -> hs.Suite:
    """The suite of a config written by `versus_config`, with the preset or ours."""
    hawks = hj.load_hawks_config(path)
    if preset is not None:
        return hj.hawks_suite(hawks, preset=preset)
    # ours: the config's "comparison: fitness" is the paper's choice of dataset, which
    # our defaults replace by the best feasible one seen
    return hj.hawks_suite(hawks, ga={"returns": "best-feasible"})


def stage_run(out: Path, runs: int, preset: str | None, workers: int, quick: bool,
              winners: tuple[str, ...], config: Path = CONFIG) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for winner in winners:
        path = out / f"{winner}.json"
        path.write_text(json.dumps(versus_config(config, winner, runs, quick), indent=2) + "\n")
        suite = versus_suite(path, preset)
        t0 = time.perf_counter()
        hs.run_suite(suite, out / winner, workers=workers, progress=False)
        print(f"{winner}: {len(suite.tasks())} runs done in "
              f"{time.perf_counter() - t0:.0f} s this time", flush=True)


def rerun_ari(X: np.ndarray, y: np.ndarray, name: str, preset: str | None,
              seed: int) -> float:
    """Mean ARI of a stochastic algorithm re-run with 10 seeds other than the run's.

    Fig. 5b re-runs each once with another initialisation; the mean over 10 estimates
    the same expectation with less noise.
    """
    algorithm = get_algorithm(name, preset=preset)
    k = len(np.unique(y))
    return statistics.fmean(adjusted_rand_index(y, algorithm(X, k, seed + 1000 + i))
                            for i in range(10))


def mean_sd(values: list[float]) -> str:
    return f"{np.mean(values):.3f} ({np.std(values, ddof=1):.3f})" if len(values) > 1 else "-"


def read_runs(out: Path) -> list[tuple[Path, dict[str, str], hd.Dataset]]:
    """The finished runs of the campaign in ``out`` (one suite per winner, a partial
    campaign too): (suite folder, summary row, returned dataset), winners in `ALGORITHMS`
    order. The run's own scores are in the dataset's ``metadata["record"]``."""
    found = []
    for winner in ALGORITHMS:
        folder = out / winner
        if (folder / "summary.csv").exists():
            found += [(folder, row, hd.Dataset.load(folder / row["path"]))
                      for row in summary_rows(folder)]
    return found


def stage_report(out: Path) -> None:
    pairs: dict[tuple[str, str], list[dict]] = {}
    feats = []
    for _, row, ds in read_runs(out):
        preset = row.get("preset") or None
        record = ds.metadata["record"]  # the run's own scores (ARI, the default score)
        rec = {"winner": float(record["winner_score"]),
               "loser": float(record["loser_score"]),
               "feasible": bool(record["feasible"])}
        for role in ("winner", "loser"):
            name = row[role]
            rec[f"{role}_rerun"] = (rerun_ari(ds.X, ds.y, name, preset, int(row["seed"]))
                                    if name in STOCHASTIC else rec[role])
        pairs.setdefault((row["winner"], row["loser"]), []).append(rec)
        feats.append([problem_features(ds.X, ds.y)[k] for k in FEATURE_NAMES])
    print("Fig. 5a, per ordered pair: mean (sd) ARI of the winner and of the loser on the "
          "returned datasets, their gap, the share of runs with a gap >= 0.9, and how many "
          "returned datasets meet the constraints (overlap, eigenvalue ratio)")
    print("| winner vs loser | runs | ARI winner | ARI loser | gap | gap >= 0.9 | feasible |")
    print("|---|---|---|---|---|---|---|")
    for (w, lo), recs in sorted(pairs.items()):
        gaps = [r["winner"] - r["loser"] for r in recs]
        print(f"| {w} vs {lo} | {len(recs)} | {mean_sd([r['winner'] for r in recs])} | "
              f"{mean_sd([r['loser'] for r in recs])} | {mean_sd(gaps)} | "
              f"{np.mean(np.array(gaps) >= 0.9):.2f} | "
              f"{sum(r['feasible'] for r in recs)}/{len(recs)} |")
    print("\nFig. 5a diagonal: mean (sd) ARI of each algorithm as winner and as loser, over "
          "its three pairings; Fig. 5b: the same with the stochastic algorithms re-run with "
          "other initialisations (mean of 10 seeds per dataset), and the change")
    print("| algorithm | as winner | as loser | as winner, re-run | as loser, re-run | "
          "change as winner | change as loser |")
    print("|---|---|---|---|---|---|---|")
    for a in ALGORITHMS:
        won = [r for (w, _), rs in pairs.items() if w == a for r in rs]
        lost = [r for (_, lo), rs in pairs.items() if lo == a for r in rs]
        if not (won and lost):
            continue
        cells = [mean_sd([r["winner"] for r in won]), mean_sd([r["loser"] for r in lost])]
        if a in STOCHASTIC:
            cells += [mean_sd([r["winner_rerun"] for r in won]),
                      mean_sd([r["loser_rerun"] for r in lost]),
                      f"{np.mean([r['winner_rerun'] - r['winner'] for r in won]):+.3f}",
                      f"{np.mean([r['loser_rerun'] - r['loser'] for r in lost]):+.3f}"]
        else:
            cells += ["-"] * 4
        print(f"| {a} | " + " | ".join(cells) + " |")
    if feats:
        table = np.array(feats)
        print("\nProblem features, mean +- sd (Table S-II, HAWKS (Versus) row), "
              f"{len(table)} datasets")
        print("| source | " + " | ".join(FEATURE_NAMES) + " |")
        print("|" + "---|" * (len(FEATURE_NAMES) + 1))
        print("| ours | " + " | ".join(
            f"{m:.3f} +- {s:.3f}" for m, s in zip(np.nanmean(table, axis=0),
                                                  np.nanstd(table, axis=0, ddof=1),
                                                  strict=True)) + " |")
        print("| paper | " + " | ".join(PAPER_TABLE_S2) + " |")


def stage_initial(out: Path, datasets: int, config: Path = CONFIG) -> None:
    """Problem features of initial individuals, drawn as each run draws its population.

    The eccentricity of the paper's Versus datasets is below ours (Table S-II); this
    says how much of ours is there before any evolution. One random individual per
    layout (cluster sizes), ``datasets`` of them, under the same config as the runs.
    """
    from hawks_deap.campaign.runs import build_problem

    path = out / "initial.json"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(versus_config(config, "gmm", 1, False), indent=2) + "\n")
    task = versus_suite(path, "hawks-tevc").tasks()[0]
    problem = build_problem(task.command, task.values)
    assert isinstance(problem, hd.VersusProblem), type(problem)  # (a Versus config)
    rng = np.random.default_rng(0)
    feats, ratios = [], []
    for _ in range(datasets):
        problem.prepare(rng)
        individual = problem.random_individual(rng)
        X, y = problem.sample(individual)
        feats.append([problem_features(X, y)[k] for k in FEATURE_NAMES])
        ratios.append(max(gene.eccentricity for gene in individual))
    table = np.array(feats)
    print(f"Problem features of {datasets} initial individuals (one per layout), mean +- sd; "
          f"{np.mean(np.array(ratios) <= 20):.2f} of them meet eigenvalue ratio <= 20")
    print("| source | " + " | ".join(FEATURE_NAMES) + " |")
    print("|" + "---|" * (len(FEATURE_NAMES) + 1))
    print("| initial | " + " | ".join(
        f"{m:.3f} +- {s:.3f}" for m, s in zip(table.mean(axis=0), table.std(axis=0, ddof=1),
                                              strict=True)) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=("run", "report", "initial"))
    parser.add_argument("--out", default="fidelity-versus")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--preset", default="hawks-tevc", help="a preset, or 'none'")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--datasets", type=int, default=200,
                        help="initial: how many initial individuals to measure")
    parser.add_argument("--config", type=Path, default=CONFIG,
                        help="HAWKS' defaults_versus.json (the paper's Versus config)")
    parser.add_argument("--winners", nargs="+", choices=ALGORITHMS, default=ALGORITHMS,
                        help="the suites to run (one per winner); four commands with one "
                        "winner each run the suites side by side")
    args = parser.parse_args()
    preset = None if args.preset == "none" else args.preset
    if args.stage == "run":
        stage_run(Path(args.out), args.runs, preset, args.workers, args.quick,
                  tuple(args.winners), args.config)
    elif args.stage == "initial":
        stage_initial(Path(args.out), args.datasets, args.config)
    else:
        stage_report(Path(args.out))


if __name__ == "__main__":
    main()
