"""HAWKS 0.2.0 JSON configs: the mapping of every key, the unmapped keys, refusals, runs.

The oracles are the JSON files themselves (the TEVC configs in the shared anchors), the
HAWKS 0.2.0 defaults as its documentation states them, and HAWKS' own rules read from
its source (grid order: ``itertools.product`` over the lists in the file's order; one
generation row per ``num_gens``; ``min_clust_size`` replaced by 2).
"""

import copy
import itertools
import json
from pathlib import Path

import pytest

from hawks_deap import cli
from hawks_deap.campaign import hawks_json as hj
from hawks_deap.campaign import runs
from hawks_deap.campaign import suite as hs
from hawks_deap.io.dataset import Dataset
from hawks_deap.problems.constraints import Eccentricity, Overlap
from hawks_deap.settings import config

ANCHORS = Path("/work/shared/anchors/hawks-tevc-configs")
INDEX = ANCHORS / "index_config.json"
VERSUS = ANCHORS / "defaults_versus.json"
needs_anchors = pytest.mark.skipif(not INDEX.is_file() or not VERSUS.is_file(),
                                   reason="the TEVC configs are not available")

UNMAPPED_COMMON = {"hawks.folder_name", "hawks.save_best_data", "hawks.save_stats",
                   "hawks.save_config", "ga.mut_args_mean.random", "ga.mut_args_mean.rails",
                   "ga.mut_args_mean.de"}


def raw(path):
    return json.loads(path.read_text())


def write(tmp_path, data, name="cfg.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def lists_in_order(d, prefix=()):
    """HAWKS' ``utils.get_key_paths``: the list-valued keys, depth first, in file order."""
    for key, value in d.items():
        if isinstance(value, dict):
            yield from lists_in_order(value, prefix + (key,))
        elif isinstance(value, list):
            yield ".".join(prefix + (key,)), value


def settings(point, command):
    """A point's resolved settings (defaults filled), as a run gets them."""
    return {**config.resolve(command, point.file_values), **point.extras}


# --------------------------------------------------------------------------- the TEVC configs


@needs_anchors
def test_index_config_every_key_maps_to_the_files_values():
    data = raw(INDEX)
    hawks = hj.load_hawks_config(INDEX)
    assert (hawks.mode, hawks.command) == ("index", "generate")
    assert hawks.runs == data["hawks"]["num_runs"] and hawks.seed == data["hawks"]["seed_num"]
    axes = dict(lists_in_order(data))
    assert hawks.grid == axes
    combos = list(itertools.product(*axes.values()))
    assert len(hawks.points) == len(combos) == 64
    ga, pso = data["ga"], data["ga"]["mut_args_mean"]["pso"]
    for point, combo in zip(hawks.points, combos):
        chosen = dict(zip(axes, combo))
        assert point.hawks == chosen
        v = settings(point, "generate")
        assert v["n_samples"] == chosen["dataset.num_examples"]
        assert v["n_dims"] == chosen["dataset.num_dims"]
        assert v["n_clusters"] == chosen["dataset.num_clusters"]
        assert v["target"] == chosen["objectives.silhouette.target"]
        assert (v["index"], v["metric"]) == ("silhouette", "sqeuclidean")
        # both constraints: overlap "upper", eigenvalue ratio "lower"
        assert v["max_overlap"] == chosen["constraints.overlap.threshold"]
        assert v["min_eccentricity"] == chosen["constraints.eigenval_ratio.threshold"]
        assert v["min_overlap"] is None and v["max_eccentricity"] is None  # (options, unset)
        assert v["min_size"] == data["dataset"]["min_clust_size"]
        assert v["equal_sizes"] is data["dataset"]["equal_clusters"]
        assert v["generations"] == ga["num_gens"] - 1
        assert v["population_size"] == ga["num_indivs"]
        assert v["mean_mutation"] == ga["mut_method_mean"] == "pso"
        assert v["mean_kwargs"] == {"low": pso["scalar_lower"], "high": pso["scalar_higher"]}
        assert v["cov_kwargs"] == {"power": ga["mut_args_cov"]["haar"]["power"]}
        assert "p_mean" not in v and "p_cov" not in v  # "length": 1/K, evolve's default
        assert v["p_crossover"] == ga["mate_prob"] and v["p_f"] == ga["prob_fitness"]
        assert v["initial_mean_upper"] == ga["initial_mean_upper"]
        assert v["initial_cov_upper"] == ga["initial_cov_upper"]
        assert v["seed"] == data["hawks"]["seed_num"]
    assert set(hawks.unmapped) == UNMAPPED_COMMON | {"ga.mut_args_mean.pso_informed",
                                                     "ga.mut_args_mean.pso_full"}
    assert hawks.notes == ()


@needs_anchors
def test_versus_config_every_key_maps_to_the_files_values():
    data = raw(VERSUS)
    hawks = hj.load_hawks_config(VERSUS)
    assert (hawks.mode, hawks.command, hawks.runs, hawks.grid) == ("versus", "versus", 1, {})
    v = hj.run_settings(hawks, "versus")
    ds, ga = data["dataset"], data["ga"]
    assert (v["n_samples"], v["n_clusters"], v["n_dims"]) == (
        ds["num_examples"], ds["num_clusters"], ds["num_dims"])
    assert (v["winner"], v["loser"], v["score"]) == ("kmeans++", "single-linkage", "ari")
    assert v["min_size"] == ds["min_clust_size"] and v["equal_sizes"] is False
    assert v["generations"] == ga["num_gens"] - 1
    assert v["population_size"] == ga["num_indivs"]
    assert v["p_f"] == ga["prob_fitness"]  # the file's value, not our Versus default 0.75
    assert v["initial_mean_upper"] == ga["initial_mean_upper"]  # not our Versus default 10
    # overlap "upper" 0.0, eigenvalue ratio "upper" 20: our min_eccentricity is unset
    assert v["max_overlap"] == data["constraints"]["overlap"]["threshold"]
    assert v["min_eccentricity"] is None
    assert v["max_eccentricity"] == data["constraints"]["eigenval_ratio"]["threshold"]
    # seed_num null: our default seed, noted
    assert data["hawks"]["seed_num"] is None and v["seed"] == 0
    assert any("seed_num" in note for note in hawks.notes)
    assert set(hawks.unmapped) == UNMAPPED_COMMON
    problem = runs.build_problem("versus", v)
    assert problem.constraints == (Overlap(max=0.0), Eccentricity(max=20.0))
    assert (problem.min_size, problem.initial_mean_upper) == (5, 1.0)
    assert problem.winner.name == "kmeans++" and problem.loser.name == "single-linkage"


@needs_anchors
def test_both_tevc_configs_make_valid_suites():
    index = hj.hawks_suite(hj.load_hawks_config(INDEX))
    assert (index.mode, index.runs, index.seed, len(index.tasks())) == ("index", 7, 0, 448)
    versus = hj.hawks_suite(hj.load_hawks_config(VERSUS))
    assert (versus.mode, versus.runs, len(versus.configurations)) == ("versus", 1, 1)
    for suite in (index, versus):
        assert suite.metadata["settings_source"]["kind"] == "hawks-0.2.0-json"
        assert all(t.metadata == {**suite.metadata, "seed_key": 1} for t in suite.tasks()[:3])


# --------------------------------------------------------------------------- HAWKS' rules


def test_missing_keys_take_hawks_defaults():
    """HAWKS 0.2.0's documented defaults (anchors/HAWKS-0.2.0.md, its defaults.json)."""
    hawks = hj.translate_hawks_config({})
    v = settings(hawks.points[0], "generate")
    assert (v["n_samples"], v["n_clusters"], v["n_dims"], v["min_size"]) == (1000, 10, 2, 5)
    assert (v["population_size"], v["generations"]) == (10, 50 - 1)
    assert (v["p_crossover"], v["p_f"]) == (0.7, 0.5)
    assert (v["initial_mean_upper"], v["initial_cov_upper"]) == (1.0, 0.5)
    assert v["cov_kwargs"] == {"power": 0.3} and v["target"] == 0.8
    # the original Gaussian mean mutation, scale 1, each coordinate with probability 1/D
    assert v["mean_mutation"] == "gaussian"
    assert v["mean_kwargs"] == {"scale": 1.0, "dims": "each"}
    assert (v["max_overlap"], v["max_eccentricity"], v["min_eccentricity"]) == (0.0, 20.0, None)
    assert hawks.unmapped == {}  # nothing in the file


@pytest.mark.parametrize(("size", "n", "k", "expected", "noted"), [
    (10, 500, 5, 10, False),
    (None, 500, 5, 2, True),       # null
    (60, 500, 10, 2, True),        # > N / K = 50
    (501, 500, 5, 2, True),        # > N
    (3.0, 500, 5, 2, True),        # a float
])
def test_min_clust_size_follows_hawks_rule(size, n, k, expected, noted):
    data = {"dataset": {"num_examples": n, "num_clusters": k, "min_clust_size": size}}
    hawks = hj.translate_hawks_config(data)
    assert hawks.points[0].extras["min_size"] == expected
    assert any("min_clust_size" in note for note in hawks.notes) is noted


def test_num_gens_counts_the_initial_population_as_hawks_does(tmp_path):
    """HAWKS stores generations 0 .. num_gens - 1 (num_gens rows per individual)."""
    data = {"hawks": {"seed_num": 1},
            "dataset": {"num_examples": 60, "num_clusters": 3, "min_clust_size": 5},
            "ga": {"num_gens": 4, "num_indivs": 4}}
    values = hj.run_settings(hj.translate_hawks_config(data), "generate")
    problem = runs.build_problem("generate", values)
    done = runs.run_configuration(problem, values, seed=values["seed"])
    assert [row["gen"] for row in done.result.logbook] == list(range(4))


def test_limits_on_either_side_and_algorithm_names():
    data = {"hawks": {"mode": "versus"},
            "objectives": {"winner": {"algorithm": "GMM"},
                           "loser": {"algorithm": "Average-Linkage", "k_multiplier": 2.0}},
            "constraints": {"overlap": {"threshold": 0.05, "limit": "lower"},
                            "eigenval_ratio": {"threshold": 3, "limit": "lower"}},
            "ga": {"mut_prob_mean": 0.5, "mut_prob_cov": 0.25, "mut_method_mean": "random",
                   "mut_args_mean": {"random": {"scale": 2.0, "dims": "all"}}}}
    v = hj.run_settings(hj.translate_hawks_config(data), "versus")
    assert (v["winner"], v["loser"]) == ("gmm", "average-linkage-2k")
    assert (v["min_overlap"], v["max_overlap"], v["min_eccentricity"]) == (0.05, None, 3.0)
    assert (v["p_mean"], v["p_cov"]) == (0.5, 0.25)
    assert v["mean_kwargs"] == {"scale": 2.0, "dims": "all"}
    problem = runs.build_problem("versus", v)
    assert problem.constraints == (Overlap(min=0.05), Eccentricity(min=3.0))
    assert runs.evolve_options(v)["p_mean"] == 0.5


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(("key", "value", "accepted"), [
    ("ga.mut_method_mean", "pso_full", "pso_informed"),
    ("ga.mut_method_mean", "levy", '"rails"'),
    ("ga.mut_method_cov", "cholesky", '"haar"'),
    ("ga.mate_scheme", "cluster", '"dv"'),
    ("ga.elites", 0.5, "1 / num_indivs"),
    ("ga.environ_selection", "nsga2", '"sr"'),
    ("ga.parent_selection", "tournament-fitness", '"tournament"'),
    ("ga.mut_prob_mean", "half", '"length"'),
    ("ga.mut_args_mean.random.dims", "some", '"all"'),
    ("hawks.n_objectives", 2, "nsga2"),
    ("hawks.mode", "multi", '"single"'),
    ("constraints.overlap.limit", "both", '"upper"'),
])
def test_values_we_cannot_honour_are_refused_by_name(key, value, accepted):
    data = copy.deepcopy(hj.HAWKS_DEFAULTS)
    _set(data, key, value)
    with pytest.raises(ValueError) as info:
        hj.translate_hawks_config(data, path="x.json")
    message = str(info.value)
    assert key in message and json.dumps(value) in message and "x.json" in message
    assert accepted in message


def _set(data, dotted, value):
    *parents, last = dotted.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    data[last] = value


@pytest.mark.parametrize(("role_spec", "key"), [
    ({"algorithm": "dbscan"}, "objectives.winner.algorithm"),
    ({"algorithm": "kmeans", "k_multiplier": 2}, "objectives.winner.k_multiplier"),
    ({"algorithm": "single_linkage", "k_multiplier": 3}, "objectives.winner.k_multiplier"),
    ({"algorithm": "kmeans", "kwargs": {"n_init": 10}}, "objectives.winner.kwargs"),
])
def test_versus_algorithms_we_cannot_honour(role_spec, key):
    data = {"hawks": {"mode": "versus"},
            "objectives": {"winner": role_spec, "loser": {"algorithm": "single_linkage"}}}
    with pytest.raises(ValueError, match=key.replace(".", r"\.")):
        hj.translate_hawks_config(data)


def test_mode_and_objectives_must_agree():
    with pytest.raises(ValueError, match=r"objectives\.winner .*hawks\.mode is \"single\""):
        hj.translate_hawks_config({"objectives": {"winner": {"algorithm": "gmm"}}})
    with pytest.raises(ValueError, match=r"objectives\.loser .*missing"):
        hj.translate_hawks_config({"hawks": {"mode": "versus"},
                                   "objectives": {"winner": {"algorithm": "gmm"}}})
    pso_informed = {"hawks": {"mode": "versus"}, "ga": {"mut_method_mean": "pso_informed"},
                    "objectives": {"winner": {"algorithm": "gmm"},
                                   "loser": {"algorithm": "single_linkage"}}}
    with pytest.raises(ValueError, match=r"ga\.mut_method_mean .*Index mode"):
        hj.translate_hawks_config(pso_informed)


def test_bad_values_name_the_hawks_key_and_our_option():
    with pytest.raises(ValueError, match=r"ga\.num_indivs \(-> \[ga\] population_size\) in "
                                         r"x\.json must be an integer >= 2, got 1"):
        hj.translate_hawks_config({"ga": {"num_indivs": 1}}, path="x.json")
    with pytest.raises(ValueError, match=r"ga\.num_gens must be an integer >= 2, got 1"):
        hj.translate_hawks_config({"ga": {"num_gens": 1}})
    with pytest.raises(TypeError, match=r"dataset\.num_examples"):
        hj.translate_hawks_config({"dataset": {"num_examples": "many"}})
    with pytest.raises(ValueError, match=r"constraints\.eigenval_ratio\.threshold"):
        hj.translate_hawks_config({"constraints": {"eigenval_ratio": {"threshold": 0.5}}})
    # a grid value is checked in its configuration, which the message names
    with pytest.raises(ValueError, match=r"configuration 1: objectives\.silhouette\.target"):
        hj.translate_hawks_config({"objectives": {"silhouette": {"target": [0.5, 2.0]}}})


def test_unknown_keys_and_malformed_files(tmp_path):
    with pytest.raises(ValueError, match=r"unknown HAWKS key ga\.num_gen; did you mean "
                                         r"ga\.num_gens\?"):
        hj.translate_hawks_config({"ga": {"num_gen": 5}})
    with pytest.raises(ValueError, match=r"unknown HAWKS key dataset\b"):
        hj.translate_hawks_config({"dataset": {"clusters": 3}})
    with pytest.raises(TypeError, match=r"ga .*must be a JSON object"):
        hj.translate_hawks_config({"ga": 5})
    path = tmp_path / "dup.json"
    path.write_text('{"ga": {"num_gens": 5, "num_gens": 6}}')
    with pytest.raises(ValueError, match=r"dup\.json is not valid JSON: duplicate key "
                                         r"'num_gens'"):
        hj.load_hawks_config(path)
    path.write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        hj.load_hawks_config(path)
    with pytest.raises(ValueError, match="cannot read"):
        hj.load_hawks_config(tmp_path / "missing.json")


def test_grid_rules():
    with pytest.raises(ValueError, match=r"hawks\.num_runs .*single value"):
        hj.translate_hawks_config({"hawks": {"num_runs": [1, 2]}})
    with pytest.raises(ValueError, match="empty list"):
        hj.translate_hawks_config({"dataset": {"num_dims": []}})
    with pytest.raises(ValueError, match="twice"):
        hj.translate_hawks_config({"dataset": {"num_dims": [2, 2]}})
    # too large to validate or to run: refused before the grid is expanded
    with pytest.raises(ValueError, match=r"hawks\.num_runs = 20,000,000 in g\.json: 1 "
                                         r"configurations x 20,000,000 runs .*at most 10,000,000"):
        hj.translate_hawks_config({"hawks": {"num_runs": 20_000_000}}, path="g.json")
    with pytest.raises(ValueError, match="expands to 120,000 configurations; at most 100,000"):
        hj.translate_hawks_config({"dataset": {"num_dims": list(range(2, 402)),
                                               "num_clusters": list(range(2, 302))}})
    # a list in arguments nothing uses would repeat the same run
    with pytest.raises(ValueError, match="configurations 0 and 1 .*same run"):
        hj.translate_hawks_config({"ga": {"mut_args_mean": {
            "rails": {"scalar_lower": [0.0, 0.5]}}}})
    # a list of mean mutations: each configuration takes its own arguments
    hawks = hj.translate_hawks_config({"ga": {"mut_method_mean": ["pso", "rails"],
                                              "mut_args_mean": {"rails": {"scalar_higher": 0.5},
                                                                "pso": {"scalar_higher": 2}}}})
    assert [p.extras["mean_kwargs"] for p in hawks.points] == [{"high": 2.0}, {"high": 0.5}]
    assert hawks.unmapped == {}  # each argument set is used by some configuration


def test_run_settings_refuses_grids_runs_and_the_other_mode():
    grid = hj.translate_hawks_config({"dataset": {"num_dims": [2, 3]}}, path="g.json")
    with pytest.raises(ValueError, match=r"grid of 2 .*hawks-deap suite g\.json"):
        hj.run_settings(grid, "generate")
    several = hj.translate_hawks_config({"hawks": {"num_runs": 3}}, path="r.json")
    with pytest.raises(ValueError, match=r"num_runs = 3 .*hawks-deap suite r\.json"):
        hj.run_settings(several, "generate")
    with pytest.raises(ValueError, match=r"Index mode: run it with `hawks-deap generate"):
        hj.run_settings(hj.translate_hawks_config({}), "versus")


def test_command_line_options_override_the_file():
    hawks = hj.translate_hawks_config({"ga": {"mut_method_mean": "rails",
                                              "mut_args_mean": {"rails": {"scalar_higher": 0.5}}}})
    v = hj.run_settings(hawks, "generate", {"generations": 3, "seed": 9})
    assert (v["generations"], v["seed"], v["mean_kwargs"]) == (3, 9, {"high": 0.5})
    # another operator: the file's arguments belong to rails, not to it
    v = hj.run_settings(hawks, "generate", {"mean_mutation": "gaussian"})
    assert v["mean_mutation"] == "gaussian" and "mean_kwargs" not in v
    # so does a suite's [ga] setting, and the file's own arguments are checked as the
    # operator checks them, with its defaults for the rest
    rails = hj.hawks_suite(hawks, ga={"mean_mutation": "gaussian"})
    assert "mean_kwargs" not in rails.configurations[0]
    for args, match in (({"scalar_higher": -0.5}, r"got low=0, high=-0.5"),
                        ({"scalar_lower": 2}, r"got low=2, high=1")):
        with pytest.raises(ValueError, match=r"ga\.mut_args_mean\.rails .*" + match):
            hj.translate_hawks_config({"ga": {"mut_method_mean": "rails",
                                              "mut_args_mean": {"rails": args}}})


def test_command_line_options_override_the_settings_the_translation_keeps_aside():
    """min_size, initial_*_upper and the constraints' other side are kept beside the
    file's values by the translation; an option given for one of them still wins."""
    hawks = hj.translate_hawks_config({
        "dataset": {"min_clust_size": 5, "equal_clusters": True},
        "ga": {"initial_mean_upper": 1.5},
        "constraints": {"eigenval_ratio": {"threshold": 20, "limit": "upper"}}})
    v = hj.run_settings(hawks, "generate")
    assert (v["min_size"], v["initial_mean_upper"], v["equal_sizes"]) == (5, 1.5, True)
    given = {"min_size": 3, "initial_mean_upper": 5.0, "max_eccentricity": 30.0}
    v = hj.run_settings(hawks, "generate", given)
    assert {k: v[k] for k in given} == given


def test_pso_informed_in_versus_mode_is_refused_before_running():
    values = config.resolve("versus", {"objective": {"winner": "gmm", "loser": "kmeans++"},
                                       "ga": {"mean_mutation": "pso-informed"}})
    with pytest.raises(ValueError, match="pso-informed .*Index mode"):
        runs.build_problem("versus", values)


# --------------------------------------------------------------------------- the command


def main(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def reduced(path, **changes):
    """A copy of a config with small sizes, so that a run takes a second."""
    data = raw(path)
    for key, value in changes.items():
        _set(data, key.replace("__", "."), value)
    return data


@needs_anchors
def test_cli_versus_with_the_reduced_versus_config(tmp_path, capsys):
    data = reduced(VERSUS, dataset__num_examples=90, dataset__num_clusters=3,
                   ga__num_gens=3, ga__num_indivs=4)
    path = write(tmp_path, data, "versus.json")
    code, out, err = main(capsys, "generate", "--config", path, "--out", tmp_path / "no")
    assert code == 2 and "hawks-deap versus --config" in err and not (tmp_path / "no").exists()
    code, out, err = main(capsys, "versus", "--config", path, "--out", tmp_path / "run")
    assert code == 0, err
    assert "ga.mut_args_mean.rails" in err and "hawks.save_stats" in err
    meta = json.loads((tmp_path / "run" / "metadata.json").read_text())
    source = meta["settings_source"]
    assert source["kind"] == "hawks-0.2.0-json" and source["path"] == str(path)
    assert set(source["unmapped"]) == UNMAPPED_COMMON
    settings = meta["command"]["settings"]
    assert settings["max_eccentricity"] == 20 and settings["generations"] == 2
    assert (tmp_path / "run" / "partitions.csv").is_file()
    assert Dataset.load(tmp_path / "run").X.shape == (90, 2)


@needs_anchors
def test_cli_suite_and_generate_with_the_reduced_index_config(tmp_path, capsys):
    data = reduced(INDEX, dataset__num_examples=[60, 80], dataset__num_dims=2,
                   dataset__num_clusters=3, objectives__silhouette__target=[0.3, 0.6],
                   constraints__overlap__threshold=0.1, constraints__eigenval_ratio__threshold=1,
                   ga__num_gens=3, ga__num_indivs=4, hawks__num_runs=2)
    path = write(tmp_path, data, "index.json")
    code, out, err = main(capsys, "generate", "--config", path, "--out", tmp_path / "no")
    assert code == 2 and "hawks-deap suite" in err
    out_dir = tmp_path / "suite"
    code, out, err = main(capsys, "suite", path, "--out", out_dir)
    assert code == 0, err
    assert "ga.mut_args_mean.pso_full" in err
    rows = hs.summary_rows(out_dir)
    combos = list(itertools.product([60, 80], [0.3, 0.6]))  # HAWKS' order
    assert [(int(r["n_samples"]), float(r["target"])) for r in rows] == [
        c for c in combos for _ in range(2)]
    for row in rows:
        meta = json.loads((out_dir / row["path"] / "metadata.json").read_text())
        assert meta["settings_source"]["kind"] == "hawks-0.2.0-json"
        assert meta["suite"]["config_id"] == row["config_id"]
    before = (out_dir / "summary.csv").read_bytes()
    code, _, err = main(capsys, "suite", path, "--out", out_dir)  # resumes: nothing to do
    assert code == 0, err
    assert (out_dir / "summary.csv").read_bytes() == before
    # one configuration, one run: generate
    single = reduced(INDEX, dataset__num_examples=60, dataset__num_dims=2,
                     dataset__num_clusters=3, objectives__silhouette__target=0.5,
                     constraints__overlap__threshold=0.1,
                     constraints__eigenval_ratio__threshold=1, ga__num_gens=3,
                     ga__num_indivs=4, hawks__num_runs=1)
    path = write(tmp_path, single, "single.json")
    code, out, err = main(capsys, "generate", "--config", path, "--out", tmp_path / "one",
                          "--quiet")
    assert code == 0, err
    meta = json.loads((tmp_path / "one" / "metadata.json").read_text())
    assert meta["seed"] == single["hawks"]["seed_num"]
    assert meta["settings_source"]["path"] == str(path)
    assert meta["command"]["config_file"] == str(path)


def test_an_object_where_a_value_belongs_is_refused_by_name():
    with pytest.raises(TypeError, match=r"hawks\.mode must be a single value, got an object"):
        hj.translate_hawks_config({"hawks": {"mode": {"a": 1}}})
    with pytest.raises(TypeError, match=r"ga\.mut_method_mean must be a single value"):
        hj.translate_hawks_config({"ga": {"mut_method_mean": {"x": 1}}})


@needs_anchors
def test_cli_suite_preset_gives_a_hawks_config_the_papers_clustering_settings(tmp_path, capsys):
    """A HAWKS config cannot name clustering settings; ``suite FILE.json --preset`` does."""
    hawks = hj.load_hawks_config(VERSUS)
    assert hj.hawks_suite(hawks).describe()["grid"] == {"hawks": hawks.merged}  # as before
    tevc = hj.hawks_suite(hawks, preset="hawks-tevc")
    assert tevc.describe()["grid"] == {"hawks": hawks.merged, "preset": "hawks-tevc"}
    assert [c["preset"] for c in tevc.configurations] == ["hawks-tevc"]
    assert [c["returns"] for c in tevc.configurations] == ["final-fittest"]  # comparison
    ours = hj.hawks_suite(hawks, ga={"returns": "best-feasible"})
    assert ours.describe()["grid"] == {"hawks": hawks.merged, "returns": "best-feasible"}
    assert [c["returns"] for c in ours.configurations] == ["best-feasible"]
    with pytest.raises(ValueError, match=r"\[ga\] retruns.*returns"):
        hj.hawks_suite(hawks, ga={"retruns": "best-feasible"})
    with pytest.raises(ValueError, match="preset='hawks-tevc' disagrees with ga="):
        hj.hawks_suite(hawks, preset="hawks-tevc", ga={"preset": None})
    assert hj.hawks_suite(hawks, preset="hawks-tevc", ga={"preset": "hawks-tevc"}
                          ).configurations == tevc.configurations
    with pytest.raises(ValueError, match=r"ga may not set 'seed'"):
        hj.hawks_suite(hawks, ga={"seed": 1})
    data = reduced(VERSUS, dataset__num_examples=90, dataset__num_clusters=3,
                   ga__num_gens=3, ga__num_indivs=4, hawks__num_runs=1,
                   objectives__loser__algorithm=["gmm", "single_linkage"])
    path = write(tmp_path, data, "versus.json")
    out_dir = tmp_path / "suite"
    code, _, err = main(capsys, "suite", path, "--preset", "hawks-tevc", "--out", out_dir,
                        "--quiet")
    assert code == 0, err
    first = (out_dir / "runs" / "c000-r00" / "data.csv").read_bytes()
    data["hawks"]["num_runs"] = 2  # a HAWKS config's runs grow as [suite] runs do
    write(tmp_path, data, "versus.json")
    code, _, err = main(capsys, "suite", path, "--preset", "hawks-tevc", "--out", out_dir,
                        "--quiet")
    assert code == 0, err
    assert (out_dir / "runs" / "c000-r00" / "data.csv").read_bytes() == first
    rows = hs.summary_rows(out_dir)
    assert [r["loser"] for r in rows] == ["gmm", "gmm", "single-linkage", "single-linkage"]
    for row in rows:
        meta = json.loads((out_dir / row["path"] / "metadata.json").read_text())
        problem = meta["problem"]
        assert problem["winner_settings"]["n_init"] == 10  # K-Means++, the preset's
        if problem["loser"] == "gmm":
            assert problem["loser_settings"]["n_init"] == 3
        assert meta["evolve"]["returns"] == "final-fittest"
        assert meta["command"]["settings"]["preset"] == "hawks-tevc"  # as the README says
    code, _, err = main(capsys, "suite", path, "--out", out_dir, "--quiet")
    assert code == 2 and "holds a different suite" in err


def test_settings_refused_together_name_the_config_file(tmp_path, capsys):
    path = write(tmp_path, {"dataset": {"num_examples": 60, "num_clusters": 40},
                            "ga": {"num_gens": 2, "num_indivs": 2}})
    code, _, err = main(capsys, "generate", "--config", path, "--out", tmp_path / "o")
    line = [ln for ln in err.splitlines() if ": note: " not in ln]
    assert code == 2 and line == [
        "hawks-deap generate: error: n_samples must be >= n_clusters * min_size = 80, got 60 "
        f"(settings of {path} and the command line)"]
    assert not (tmp_path / "o").exists()
