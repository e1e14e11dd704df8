"""The seeds of a varied set of suite grids: recorded once, checked after every change.

A suite run's seed comes from a versioned key (`hawks_deap.campaign.suite.SEED_KEY_VERSION`). The
grids below (TOML grids of both modes, with lists in every section, presets, constraints
stated and removed, ``eccentricity_of`` and ``returns`` stated; HAWKS 0.2.0 JSON grids,
the two TEVC configs of the shared anchors among them when present) are stored with
every task's ``(config_id, run, seed)`` in ``tests/data/suite_seeds_v1.json``;
``tests/test_seed_key.py`` rebuilds each suite from the stored grid and compares.

    python benchmarks/suite_seeds.py --write tests/data/suite_seeds_v1.json
    python benchmarks/suite_seeds.py --check tests/data/suite_seeds_v1.json

``--write`` is for a new key version only (a new file): the v1 file is the record of
the seeds suites had before the key was versioned, and must never be rewritten.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from hawks_deap.campaign import hawks_json as hj
from hawks_deap.campaign import suite as hs

ANCHORS = Path("/work/shared/anchors/hawks-tevc-configs")

#: TOML grids: (name, text, load_suite's preset).
TOML_GRIDS: list[tuple[str, str, str | None]] = [
    ("readme-index", """
[suite]
runs = 3
seed = 0
mode = "index"
[dataset]
n_samples = [500, 2500]
n_dims = [2, 50]
n_clusters = [5, 30]
[objective]
target = [0.45, 0.9]
[constraints]
max_overlap = [0.0, 0.1]
min_eccentricity = [1.0, 50.0]
""", None),
    ("index-every-section", """
[suite]
runs = 2
seed = 7
[dataset]
n_samples = 300
n_clusters = [3, 4]
[objective]
target = [0.2, 0.8]
index = "silhouette"
metric = ["sqeuclidean", "euclidean"]
[ga]
generations = [5, 20]
population_size = 8
mean_mutation = ["pso", "rails", "gaussian", "de", "pso-informed"]
p_crossover = 0.5
p_f = [0.3, 0.45]
""", None),
    ("index-defaults-only", """
[suite]
runs = 4
""", None),
    ("index-format-npz", """
[suite]
runs = 2
seed = 3
format = "npz"
[dataset]
n_samples = [100, 200]
""", None),
    ("versus", """
[suite]
runs = 3
seed = 11
mode = "versus"
[dataset]
n_samples = 200
n_clusters = [3, 5]
[objective]
winner = ["kmeans++", "gmm"]
loser = "single-linkage"
score = "ari"
[ga]
generations = 10
""", None),
    ("versus-preset", """
[suite]
runs = 2
seed = 5
mode = "versus"
[dataset]
n_samples = 150
n_clusters = 3
[objective]
winner = "gmm"
loser = ["kmeans++", "single-linkage"]
[ga]
preset = "hawks-tevc"
p_f = [0.5, 0.75]
""", None),
    ("index-preset", """
[suite]
runs = 3
seed = 1
[dataset]
n_samples = [200, 400]
[ga]
preset = "hawks-tevc"
""", None),
    ("index-preset-option", """
[suite]
runs = 2
seed = 2
[dataset]
n_samples = [200, 400]
[constraints]
min_eccentricity = 2.0
""", "hawks-tevc"),
    ("constraints-stated-and-none", """
[suite]
runs = 2
seed = 4
[dataset]
n_samples = 250
[constraints]
max_overlap = ["none", 0.05, 0.1]
min_eccentricity = [3.0, "none"]
""", None),
    ("eccentricity-of-and-returns", """
[suite]
runs = 2
seed = 9
[dataset]
n_samples = 250
[constraints]
min_eccentricity = 2.0
eccentricity_of = ["any", "all"]
[ga]
returns = ["best-feasible", "final-fittest"]
""", None),
    ("returns-and-preset-stated", """
[suite]
runs = 2
seed = 12
[ga]
returns = "final-fittest"
preset = ["hawks-tevc"]
""", None),
]

#: A small HAWKS 0.2.0 config (defaults elsewhere), with lists and the non-default sides.
SMALL_HAWKS: dict[str, Any] = {
    "hawks": {"seed_num": 42, "num_runs": 3},
    "dataset": {"num_examples": [200, 400], "num_clusters": 3, "min_clust_size": 10},
    "objectives": {"silhouette": {"target": [0.5, 0.9]}},
    "ga": {"num_gens": 20, "num_indivs": 8, "mut_method_mean": "rails",
           "mut_prob_mean": 0.3},
    "constraints": {"overlap": {"threshold": 0.05, "limit": "lower"},
                    "eigenval_ratio": {"threshold": 10, "limit": "upper"}},
}

#: HAWKS grids: (name, config, hawks_suite's preset, hawks_suite's ga).
HAWKS_GRIDS: list[tuple[str, Any, str | None, dict[str, Any] | None]] = [
    ("hawks-defaults", {}, None, None),
    ("hawks-small", SMALL_HAWKS, None, None),
    ("hawks-small-preset", SMALL_HAWKS, "hawks-tevc", None),
    ("hawks-small-ga", SMALL_HAWKS, None, {"returns": "best-feasible", "mean_mutation": "pso"}),
]
for _name, _file in (("hawks-tevc-index", "index_config.json"),
                     ("hawks-tevc-versus", "defaults_versus.json")):
    if (ANCHORS / _file).is_file():
        _config = json.loads((ANCHORS / _file).read_text())
        HAWKS_GRIDS.append((_name, _config, None, None))
        HAWKS_GRIDS.append((f"{_name}-preset", _config, "hawks-tevc", None))


def build(case: dict[str, Any], folder: Path) -> hs.Suite:
    """The suite of a stored case (``kind`` ``"toml"`` or ``"hawks"``)."""
    if case["kind"] == "toml":
        path = folder / f"{case['name']}.toml"
        path.write_text(case["grid"])
        return hs.load_suite(path, preset=case["preset"])
    path = folder / f"{case['name']}.json"
    path.write_text(json.dumps(case["grid"]))
    return hj.hawks_suite(hj.load_hawks_config(path), preset=case["preset"], ga=case["ga"])


def tasks(suite: hs.Suite) -> list[list[Any]]:
    """Every task's ``[config_id, run, seed]``."""
    return [[t.config_id, t.run, t.seed] for t in suite.tasks()]


def cases() -> list[dict[str, Any]]:
    """Every grid, without its tasks."""
    out = [{"name": n, "kind": "toml", "grid": text.strip() + "\n", "preset": p, "ga": None}
           for n, text, p in TOML_GRIDS]
    out += [{"name": n, "kind": "hawks", "grid": g, "preset": p, "ga": ga}
            for n, g, p, ga in HAWKS_GRIDS]
    return out


def dump(recorded: list[dict[str, Any]]) -> str:
    """The file's text: one line per case's grid, one per task."""
    lines = []
    for case in recorded:
        head = json.dumps({k: v for k, v in case.items() if k != "tasks"})
        body = ",\n".join(f"  {json.dumps(t)}" for t in case["tasks"])
        lines.append(f"{head[:-1]}, \"tasks\": [\n{body}]}}")
    return '{"key_version": 1, "cases": [\n' + ",\n".join(lines) + "]}\n"


def main(argv: list[str] | None = None) -> int:
    """Write or check the recorded seeds; prints one line per grid."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", type=Path, help="record every grid's seeds in this file")
    action.add_argument("--check", type=Path, help="compare with the seeds in this file")
    args = parser.parse_args(argv)
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        if args.write:
            if args.write.exists():
                parser.error(f"{args.write} exists: a recorded key version is never rewritten")
            recorded = []
            for case in cases():
                case["tasks"] = tasks(build(case, Path(folder)))
                recorded.append(case)
                print(f"{case['name']}: {len(case['tasks'])} tasks")
            args.write.write_text(dump(recorded))
            return 0
        for case in json.loads(args.check.read_text())["cases"]:
            now = tasks(build(case, Path(folder)))
            same = now == case["tasks"]
            failed += not same
            print(f"{case['name']}: {len(now)} tasks, {'same' if same else 'DIFFERENT'} seeds")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
