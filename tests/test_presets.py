"""Presets (issue 20): the paper's settings one switch away, changing exactly what they list."""

import json

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap import cli
from hawks_deap.algorithms import RETURNS, final_fittest, select_best
from hawks_deap.campaign import suite as hs
from hawks_deap.campaign.runs import build_problem
from hawks_deap.presets import ALGORITHM_PRESETS, PRESETS, check_preset, preset_settings
from hawks_deap.problems import IndexProblem
from hawks_deap.problems.constraints import Eccentricity, from_settings
from hawks_deap.settings import config
from hawks_deap.settings.model import RunSettings

SMALL = {"n_samples": 120, "n_clusters": 3, "generations": 6, "population_size": 6}


def test_preset_names_and_settings():
    assert check_preset(None) is None
    assert check_preset("hawks-tevc") == "hawks-tevc"
    with pytest.raises(ValueError, match="unknown preset 'tevc'; valid: 'hawks-tevc'"):
        check_preset("tevc")
    with pytest.raises(TypeError, match="preset must be a string or None"):
        check_preset(1)
    assert preset_settings(None, "generate") == {}
    assert preset_settings("hawks-tevc", "generate") == {"returns": "final-fittest"}
    # one list of presets: each has run settings and clustering settings
    assert set(PRESETS) == set(ALGORITHM_PRESETS)
    # a preset is settings: for each command, option values that make valid RunSettings
    for by_command in PRESETS.values():
        assert set(by_command) == set(config.COMMANDS)
        for command, settings in by_command.items():
            for key, value in settings.items():
                (opt,) = [o for o in config.options_for(command) if o.key == key]
                assert opt.validate(value) == value
            objective = {"versus": {"winner": "gmm", "loser": "kmeans++"},
                         "target": {"targets": "silhouette=0.3"}}.get(command, {})
            built = RunSettings.from_values(command, {**settings, **objective})
            assert {k: built.values()[k] for k in settings} == settings


def test_the_tevc_preset_is_the_papers_setup_of_each_mode():
    """HAWKS-0.2.0.md and its hawks-tevc-configs: TEVC Versus N=2000, K=5, D=2, overlap
    <= 0, eigenvalue ratio <= 20, clusters of >= 5 points, means in U(0, 10), P_f 0.75;
    Index mode's defaults (clusters >= 10 points, means in U(0, 2)) are ours."""
    versus = config.resolve("versus", {"ga": {"preset": "hawks-tevc"}})
    assert {k: versus[k] for k in ("n_samples", "n_clusters", "n_dims", "max_overlap",
                                   "max_eccentricity", "min_size", "initial_mean_upper",
                                   "p_f", "returns")} == {
        "n_samples": 2000, "n_clusters": 5, "n_dims": 2, "max_overlap": 0.0,
        "max_eccentricity": 20.0, "min_size": 5, "initial_mean_upper": 10.0, "p_f": 0.75,
        "returns": "final-fittest"}
    problem = build_problem("versus", {**versus, "winner": "kmeans++",
                                       "loser": "single-linkage"})
    assert (problem.n_samples, problem.n_clusters, problem.n_dims, problem.min_size,
            problem.initial_mean_upper) == (2000, 5, 2, 5, 10.0)
    bounds = {type(c).__name__: (c.min, c.max) for c in problem.constraints}
    assert bounds == {"Overlap": (None, 0.0), "Eccentricity": (None, 20.0)}
    index = IndexProblem(100, 3, 2, 0.5)
    generate = config.resolve("generate", {"ga": {"preset": "hawks-tevc"}})
    assert build_problem("generate", {**generate, "n_samples": 100, "n_clusters": 3}
                         ).min_size == index.min_size == 10
    assert index.initial_mean_upper == 2.0
    # what the file or the command line gives wins over the preset
    mine = config.resolve("versus", {"dataset": {"n_samples": 300}}, {"preset": "hawks-tevc"})
    assert (mine["n_samples"], mine["n_clusters"]) == (300, 5)


def test_resolve_applies_the_preset_below_the_file_and_the_command_line():
    base = config.resolve("generate")
    assert (base["preset"], base["returns"], base["eccentricity_of"]) == (
        None, "best-feasible", "any")
    tevc = config.resolve("generate", cli_values={"preset": "hawks-tevc"})
    changed = {k for k in base if base[k] != tevc[k]}
    assert changed == {"preset", "returns"}  # exactly the documented settings
    assert tevc["returns"] == "final-fittest"
    # the file wins over the preset, and the command line over the file
    file_values = {"ga": {"preset": "hawks-tevc", "returns": "best-feasible"}}
    assert config.resolve("versus", file_values)["returns"] == "best-feasible"
    assert config.resolve("generate", {"ga": {"returns": "best-feasible"}},
                          {"preset": "hawks-tevc"})["returns"] == "best-feasible"
    assert config.resolve("generate", {"ga": {"preset": "hawks-tevc"}},
                          {"returns": "best-feasible"})["returns"] == "best-feasible"
    with pytest.raises(ValueError, match=r"\[ga\] preset must be one of 'hawks-tevc'"):
        config.validate_config({"ga": {"preset": "paper"}})


def _problem():
    return hd.IndexProblem(150, 4, 2, 0.3, constraints=[hd.Overlap(max=0.0)])


def test_returns_picks_the_final_fittest_from_the_same_evolution():
    kwargs = {"population_size": 8, "generations": 8, "seed": 3}
    default = hd.evolve(_problem(), **kwargs)
    paper = hd.evolve(_problem(), returns="final-fittest", **kwargs)
    # the evolution is the same: only the returned individual differs
    assert list(default.logbook) == list(paper.logbook)
    assert [ind.fitness.values for ind in default.population] == [
        ind.fitness.values for ind in paper.population]
    assert default.best is default.best_feasible
    assert hd.Dataset.to_csv_text(paper.best_dataset()) == hd.Dataset.to_csv_text(
        paper.dataset(final_fittest(paper.population)))
    # brute force: the smallest |s_t - s| of the final population, penalty ignored
    errors = [ind.fitness.values[0] for ind in paper.population]
    assert paper.best.fitness.values[0] == min(errors)
    assert paper.best_feasible.fitness.values == default.best.fitness.values
    assert paper.settings["returns"] == "final-fittest" and "returns" not in default.settings
    with pytest.raises(ValueError, match="unknown returns 'best'; valid: 'best-feasible', "
                                         "'final-fittest'"):
        hd.evolve(_problem(), returns="best", generations=1)


def test_final_fittest_ignores_the_penalty_where_select_best_does_not():
    result = hd.evolve(_problem(), population_size=10, generations=10, seed=5)
    pop = result.population
    fittest = final_fittest(pop)
    assert fittest.fitness.wvalues[0] == max(ind.fitness.wvalues[0] for ind in pop)
    # ties go to the better-ranked individual
    assert fittest is next(ind for ind in pop
                           if ind.fitness.wvalues[0] == fittest.fitness.wvalues[0])
    feasible = [ind for ind in pop if ind.record["penalty"] == 0.0]
    if feasible and fittest.record["penalty"] > 0:
        assert select_best(pop) is not fittest
    assert final_fittest([]) is None
    assert RETURNS == ("best-feasible", "final-fittest", "final-top-ranked")


def test_eccentricity_of_chooses_the_aggregation():
    (any_,) = from_settings({"min_eccentricity": 5.0})
    (all_,) = from_settings({"min_eccentricity": 5.0, "eccentricity_of": "all"})
    assert isinstance(any_, Eccentricity) and any_.aggregate == "max"
    assert all_.aggregate == "min"
    genes = hd.evolve(hd.IndexProblem(100, 3, 2, 0.5), population_size=2, generations=1,
                      seed=0).best
    ratios = [gene.eccentricity for gene in genes]
    assert len(set(ratios)) == 3
    assert any_.compute(genes) == max(ratios) and all_.compute(genes) == min(ratios)
    with pytest.raises(ValueError, match="eccentricity_of 'some'; valid: 'any', 'all'"):
        from_settings({"min_eccentricity": 5.0, "eccentricity_of": "some"})


def test_a_run_with_the_preset_records_it(tmp_path, capsys):
    out = tmp_path / "run"
    code = cli.main(["generate", "--n-samples", "120", "--n-clusters", "3", "--generations",
                     "4", "--population-size", "6", "--min-eccentricity", "3",
                     "--eccentricity-of", "all", "--preset", "hawks-tevc", "--out", str(out),
                     "--quiet"])
    assert code == 0, capsys.readouterr().err
    meta = json.loads((out / "metadata.json").read_text())
    settings = meta["command"]["settings"]
    assert settings["preset"] == "hawks-tevc"
    assert settings["returns"] == "final-fittest"
    assert settings["eccentricity_of"] == "all"
    assert meta["evolve"]["returns"] == "final-fittest"
    constraints = {c["type"]: c for c in meta["problem"]["constraints"]}
    assert constraints["Eccentricity"]["aggregate"] == "min"


def test_suite_seeds_do_not_move_for_settings_at_their_defaults():
    values = config.resolve("generate", cli_values=SMALL)
    values.pop("seed"), values.pop("n_jobs")
    old = {k: v for k, v in values.items() if k not in ("preset", "returns", "eccentricity_of")}
    assert hs.derive_seed(7, values, 2) == hs.derive_seed(7, old, 2)
    assert hs.derive_seed(7, {**values, "returns": "final-fittest"}, 2) != hs.derive_seed(
        7, values, 2)
    assert np.all(np.diff([hs.derive_seed(7, values, r) for r in range(3)]) != 0)


def test_a_versus_run_with_the_preset_uses_and_records_its_clustering_settings(tmp_path,
                                                                              capsys):
    out = tmp_path / "vs"
    code = cli.main(["versus", "kmeans++", "single-linkage", "--n-samples", "60",
                     "--n-clusters", "3", "--generations", "2", "--population-size", "4",
                     "--preset", "hawks-tevc", "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["problem"]["winner"] == "kmeans++"
    assert meta["problem"]["winner_settings"]["n_init"] == 10
    assert meta["problem"]["loser_settings"] == hd.clustering.get_algorithm(
        "single-linkage").settings
    values = config.resolve("versus", cli_values={"winner": "gmm", "loser": "kmeans++",
                                                  "preset": "hawks-tevc"})
    from hawks_deap.campaign.runs import build_problem

    problem = build_problem("versus", values)
    assert problem.winner.settings["n_init"] == 3 and problem.loser.settings["n_init"] == 10
    default = build_problem("versus", {**values, "preset": None})
    assert default.loser.settings["n_init"] == "auto"
