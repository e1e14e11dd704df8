"""Typed settings (issue 32, item 1): one frozen dataclass per section, validated when
built; the schema is read off their fields; the rules that span settings are checked in
one place, with the rules the operators declare."""

import dataclasses

import pytest

import hawks_deap as hd
from hawks_deap.operators import MEAN_MUTATIONS, mean_needs
from hawks_deap.settings import config
from hawks_deap.settings.model import (
    SECTIONS,
    ConstraintSettings,
    DatasetSettings,
    GASettings,
    IndexObjective,
    RunSettings,
    VersusObjective,
    setting_options,
)

VERSUS = {"winner": "gmm", "loser": "single-linkage"}


def test_the_schema_is_read_off_the_settings_fields():
    assert config.OPTIONS == setting_options()
    fields = [(cls, f) for cls in SECTIONS for f in dataclasses.fields(cls)]
    with_option = [(cls, f) for cls, f in fields if f.metadata["option"] is not None]
    assert len(with_option) == len(config.OPTIONS)
    for (cls, f), opt in zip(with_option, config.OPTIONS):
        assert (opt.section, opt.key) == (cls.SECTION, f.name)
        assert f.default == opt.default  # one default, the option's
    # the settings without an option are the HAWKS-only ones, unset by default
    assert {f.name for _, f in fields if f.metadata["option"] is None} == {
        "equal_sizes", "p_mean", "p_cov", "mean_kwargs", "cov_kwargs"}
    assert all(f.default is None for _, f in fields if f.metadata["option"] is None)


@pytest.mark.parametrize("cls", SECTIONS)
def test_every_section_is_frozen_and_defaults_are_valid(cls):
    section = cls()
    field = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(section, field, None)


@pytest.mark.parametrize(("cls", "kwargs", "error", "message"), [
    (DatasetSettings, {"n_samples": 0}, ValueError,
     r"^\[dataset\] n_samples must be an integer >= 1, got 0$"),
    (DatasetSettings, {"n_clusters": 2.5}, TypeError, r"\[dataset\] n_clusters must be an "
                                                      r"integer >= 2, got 2.5 \(float\)"),
    (DatasetSettings, {"initial_mean_upper": 0.0}, ValueError,
     r"\[dataset\] initial_mean_upper must be a number > 0"),
    (IndexObjective, {"metric": "cosine"}, ValueError, r"\[objective\] metric must be one of"),
    (VersusObjective, {"winner": "kmeans"}, ValueError,
     r"did you mean 'kmeans\+\+'\?"),
    (ConstraintSettings, {"max_overlap": 1.5}, ValueError,
     r"\[constraints\] max_overlap must be a number in \[0, 1\]"),
    (GASettings, {"mean_mutation": "levy"}, ValueError, r"\[ga\] mean_mutation must be one of"),
    (GASettings, {"mean_mutation": "de", "mean_kwargs": {"scale": 1.0}}, TypeError,
     "unexpected keyword argument .scale."),
])
def test_a_section_checks_each_setting_when_built(cls, kwargs, error, message):
    with pytest.raises(error, match=message):
        cls(**kwargs)


def test_values_are_normalised_once():
    assert DatasetSettings(initial_mean_upper=10).initial_mean_upper == 10.0
    assert isinstance(DatasetSettings(initial_mean_upper=10).initial_mean_upper, float)
    assert ConstraintSettings(max_overlap="none").max_overlap is None


@pytest.mark.parametrize("command", ["generate", "versus"])
def test_from_values_and_values_round_trip(command):
    given = {"n_samples": 300, "max_eccentricity": 20.0, "min_size": 5,
             **(VERSUS if command == "versus" else {"target": 0.7})}
    settings = RunSettings.from_values(command, given)
    assert RunSettings.from_values(command, settings.values()) == settings
    resolved = {k: v for k, v in config.resolve(command, cli_values=given).items()}
    assert settings.values() == resolved  # the command line's settings, the same values
    assert settings.ga.p_f == (0.75 if command == "versus" else 0.5)  # per-command default


def test_unknown_settings_and_commands_are_named():
    with pytest.raises(ValueError, match="unknown settings for generate: winner"):
        RunSettings.from_values("generate", {"winner": "gmm"})
    with pytest.raises(ValueError, match="unknown command 'suite'"):
        RunSettings.from_values("suite", {})
    with pytest.raises(TypeError, match="objective of 'versus' must be a VersusObjective"):
        RunSettings("versus", DatasetSettings(), IndexObjective(), ConstraintSettings(),
                    GASettings())


def test_the_rules_that_span_settings():
    with pytest.raises(ValueError, match=r"^--mean-mutation de \(\[ga\] mean_mutation = 'de'\) "
                                         r"needs --n-clusters >= 3 \(\[dataset\] n_clusters\): "
                                         "it combines three other clusters' means$"):
        RunSettings.from_values("generate", {"mean_mutation": "de", "n_clusters": 2})
    RunSettings.from_values("generate", {"mean_mutation": "de", "n_clusters": 3})
    with pytest.raises(ValueError, match="pso-informed .* Index mode"):
        RunSettings.from_values("versus", {**VERSUS, "mean_mutation": "pso-informed"})
    RunSettings.from_values("generate", {"mean_mutation": "pso-informed"})
    with pytest.raises(ValueError, match=r"needs a winner and a loser \(loser missing\)"):
        RunSettings.from_values("versus", {"winner": "gmm"})


def test_an_operator_states_its_needs_once_for_the_settings_and_the_toolbox(monkeypatch):
    """A user's mean operator that needs K >= 4: the run settings and make_toolbox both
    refuse K = 3 from that one declaration."""
    def mut_mean_four(individual, cluster, rng=None):
        return (individual,)

    mut_mean_four.min_clusters = 4
    monkeypatch.setitem(MEAN_MUTATIONS, "four", mut_mean_four)
    assert mean_needs("four") == (False, 4, "")
    with pytest.raises(ValueError, match=r"needs --n-clusters >= 4 \(\[dataset\] n_clusters\)$"):
        RunSettings.from_values("generate", {"mean_mutation": "four", "n_clusters": 3})
    problem = hd.IndexProblem(60, 3, 2, 0.5)
    with pytest.raises(ValueError, match=r"mean_mutation='four' needs n_clusters >= 4, got 3"):
        hd.make_toolbox(problem, mean_mutation="four", seed=0)
    RunSettings.from_values("generate", {"mean_mutation": "four", "n_clusters": 4})


def test_the_problem_and_the_loop_settings_come_from_the_sections():
    settings = RunSettings.from_values("generate", {
        "n_samples": 200, "n_clusters": 4, "min_size": 7, "initial_mean_upper": 3.0,
        "max_eccentricity": 9.0, "eccentricity_of": "all", "generations": 3, "p_f": 0.4})
    problem = settings.problem()
    assert (problem.n_samples, problem.n_clusters, problem.min_size,
            problem.initial_mean_upper, problem.initial_cov_upper) == (200, 4, 7, 3.0, 0.5)
    assert [type(c).__name__ for c in problem.constraints] == ["Overlap", "Eccentricity"]
    assert settings.evolve_options() == {
        "population_size": 10, "generations": 3, "p_crossover": 0.7, "p_f": 0.4,
        "mean_mutation": "pso", "n_jobs": None, "returns": "best-feasible"}
    hawks = GASettings(p_mean=0.2, mean_kwargs={"low": 0.0, "high": 1.0})
    assert hawks.evolve_options()["p_mean"] == 0.2
    assert hawks.evolve_options()["mean_kwargs"] == {"low": 0.0, "high": 1.0}
    versus = RunSettings.from_values("versus", {**VERSUS, "n_samples": 90, "n_clusters": 3})
    assert (versus.problem().winner.name, versus.problem().loser.name) == (
        "gmm", "single-linkage")


def test_the_new_options_are_on_the_command_line_and_in_toml(tmp_path):
    import argparse

    parser = argparse.ArgumentParser()
    config.add_arguments(parser, "versus")
    args = parser.parse_args(["gmm", "kmeans++", "--min-size", "5", "--max-eccentricity", "20",
                              "--initial-mean-upper", "10", "--min-overlap", "0.01"])
    values = config.resolve("versus", cli_values=config.cli_values(args, "versus"))
    assert (values["min_size"], values["max_eccentricity"], values["initial_mean_upper"],
            values["min_overlap"]) == (5, 20.0, 10.0, 0.01)
    path = tmp_path / "c.toml"
    path.write_text("[dataset]\nmin_size = 3\ninitial_cov_upper = 1.5\n")
    file_values = config.load_config(path, command="generate")
    values = config.resolve("generate", file_values)
    assert (values["min_size"], values["initial_cov_upper"]) == (3, 1.5)
    assert RunSettings.from_values("generate", values).problem().min_size == 3
