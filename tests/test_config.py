"""The option schema: TOML validation, suggestions, precedence, argparse generation."""

import argparse

import pytest

from hawks_deap.campaign.suite import expand_grid
from hawks_deap.settings import config
from hawks_deap.settings.config import (
    OPTIONS,
    load_config,
    options_for,
    resolve,
    validate_config,
)


def write(tmp_path, text, name="c.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


GOOD = """
[dataset]
n_samples = 400
n_clusters = 4
n_dims = 3

[objective]
target = 1          # an integer is a valid float
index = "silhouette"
metric = "euclidean"

[constraints]
max_overlap = "none"
min_eccentricity = 2.5

[ga]
generations = 7
population_size = 6
mean_mutation = "rails"
seed = 3
"""


def test_schema_is_one_table_with_unique_keys_and_the_required_sections():
    keys = [o.key for o in OPTIONS]
    assert len(keys) == len(set(keys))
    assert config.sections()[:4] == ["dataset", "objective", "constraints", "ga"]
    where = {o.key: o.section for o in OPTIONS}
    assert {k: where[k] for k in ("n_samples", "n_clusters", "n_dims")} == dict.fromkeys(
        ("n_samples", "n_clusters", "n_dims"), "dataset")
    assert {where[k] for k in ("target", "index", "metric")} == {"objective"}
    assert {where[k] for k in ("max_overlap", "min_eccentricity")} == {"constraints"}
    assert {where[k] for k in ("generations", "population_size", "mean_mutation",
                               "seed")} == {"ga"}


def test_load_good_config(tmp_path):
    values = load_config(write(tmp_path, GOOD), command="generate")
    assert values["dataset"] == {"n_samples": 400, "n_clusters": 4, "n_dims": 3}
    assert values["objective"]["target"] == 1.0
    assert isinstance(values["objective"]["target"], float)
    assert values["constraints"] == {"max_overlap": None, "min_eccentricity": 2.5}
    assert values["ga"]["mean_mutation"] == "rails"


@pytest.mark.parametrize("text,match", [
    ("[dataset]\nn_sample = 10\n",
     r"unknown key \[dataset\] n_sample in .*c\.toml; did you mean \[dataset\] n_samples\?"),
    ("[dataset]\nseed = 10\n", r"unknown key \[dataset\] seed .*did you mean \[ga\] seed\?"),
    ("[dataset]\nn-samples = 10\n", r"did you mean \[dataset\] n_samples\?"),
    ("[ga]\npopulaton_size = 4\n", r"did you mean \[ga\] population_size\?"),
    ("[constraints]\nmax_overlp = 0.2\n", r"did you mean \[constraints\] max_overlap\?"),
    ("[datasets]\nn_samples = 10\n", r"unknown section \[datasets\].*did you mean \[dataset\]\?"),
    ("[dataset]\nzzz = 1\n", r"unknown key \[dataset\] zzz .*valid keys in \[dataset\]: "
                             r"n_samples, n_clusters, n_dims"),
])
def test_unknown_keys_name_the_key_and_suggest_the_closest(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        load_config(write(tmp_path, text))


@pytest.mark.parametrize("text,error,match", [
    ('[dataset]\nn_samples = "400"\n', TypeError,
     r"\[dataset\] n_samples .* must be an integer >= 1, got '400'"),
    ("[dataset]\nn_samples = 400.0\n", TypeError, r"\[dataset\] n_samples .*integer"),
    ("[dataset]\nn_clusters = 1\n", ValueError,
     r"\[dataset\] n_clusters .* must be an integer >= 2, got 1"),
    ("[dataset]\nn_dims = true\n", TypeError, r"\[dataset\] n_dims"),
    ('[objective]\ntarget = "high"\n', TypeError,
     r"\[objective\] target .* must be a number, got 'high'"),
    ('[objective]\nmetric = "cosine"\n', ValueError,
     r"\[objective\] metric .*one of 'sqeuclidean', 'euclidean', got 'cosine'"),
    ('[ga]\nmean_mutation = "gausian"\n', ValueError, r"did you mean 'gaussian'\?"),
    ("[constraints]\nmax_overlap = 2\n", ValueError,
     r"\[constraints\] max_overlap .* in \[0, 1\] or \"none\", got 2.0"),
    ("[constraints]\nmin_eccentricity = 0.5\n", ValueError, r"min_eccentricity .* >= 1"),
    ("[ga]\nseed = -1\n", ValueError, r"\[ga\] seed .* >= 0"),
    ("[ga]\ngenerations = [1, 2]\n", TypeError, r"\[ga\] generations .* got a list"),
    ("dataset = 3\n", TypeError, r"\[dataset\] .* must be a table"),
])
def test_wrong_types_and_ranges_name_the_key_and_allowed_values(tmp_path, text, error, match):
    with pytest.raises(error, match=match):
        load_config(write(tmp_path, text))


def test_keys_of_another_command_are_errors(tmp_path):
    path = write(tmp_path, '[objective]\ntarget = 0.3\n')
    with pytest.raises(ValueError, match=r"\[objective\] target .* not used by the 'versus'"):
        load_config(path, command="versus")
    assert load_config(path)["objective"]["target"] == 0.3  # no command: any key


def test_invalid_toml_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"bad\.toml is not valid TOML"):
        load_config(write(tmp_path, "[dataset\nn_samples=1", name="bad.toml"))
    with pytest.raises(ValueError, match="cannot read config file"):
        load_config(tmp_path / "missing.toml")


def test_resolve_precedence_defaults_file_cli():
    file_values = {"dataset": {"n_samples": 400}, "ga": {"seed": 3, "generations": 7}}
    values = resolve("generate", file_values, {"seed": 9})
    assert values["n_samples"] == 400          # file over default
    assert values["seed"] == 9                 # command line over file
    assert values["generations"] == 7
    assert values["n_clusters"] == 5           # default
    assert values["min_eccentricity"] is None and values["max_overlap"] == 0.1
    assert set(values) == {o.key for o in options_for("generate")}
    assert "winner" not in values and "target" in values and values["n_jobs"] is None
    versus = resolve("versus")
    assert versus["p_f"] == 0.75 and versus["score"] == "ari" and versus["n_jobs"] is None
    assert "target" not in versus


def test_argparse_options_are_generated_from_the_schema():
    for command in config.COMMANDS:
        parser = argparse.ArgumentParser()
        config.add_arguments(parser, command)
        dests = {a.dest for a in parser._actions if a.dest != "help"}
        assert dests == {o.key for o in options_for(command)}
        flags = {s for a in parser._actions for s in a.option_strings}
        for opt in options_for(command):
            if not opt.positional:
                assert opt.flag in flags
    parser = argparse.ArgumentParser()
    config.add_arguments(parser, "generate")
    args = parser.parse_args(["--n-samples", "300", "--max-overlap", "none"])
    assert config.cli_values(args, "generate") == {"n_samples": 300, "max_overlap": None}


def test_cli_text_parsing_errors():
    opt = next(o for o in OPTIONS if o.key == "n_samples")
    assert opt.parse_text("12") == 12
    with pytest.raises(TypeError, match="--n-samples must be an integer >= 1, got 'x'"):
        opt.parse_text("x")
    with pytest.raises(ValueError, match="--n-samples must be an integer >= 1, got 0"):
        opt.parse_text("0")
    ecc = next(o for o in OPTIONS if o.key == "min_eccentricity")
    assert ecc.parse_text("None") is None and ecc.parse_text("3") == 3.0
    parser = argparse.ArgumentParser()
    config.add_arguments(parser, "generate")
    with pytest.raises(SystemExit):
        parser.parse_args(["--target", "two"])


def test_grid_files_validate_each_value_and_expand_to_a_product():
    grid = validate_config({"dataset": {"n_clusters": [2, 5], "n_samples": 300},
                            "objective": {"target": [0.2, 0.5, 0.8]}}, allow_lists=True)
    points = expand_grid(grid)
    assert len(points) == 6
    assert points[0] == {"dataset": {"n_samples": 300, "n_clusters": 2},
                         "objective": {"target": 0.2}}
    assert [p["objective"]["target"] for p in points[:3]] == [0.2, 0.5, 0.8]
    assert expand_grid({"ga": {"seed": 1}}) == [{"ga": {"seed": 1}}]
    with pytest.raises(ValueError, match=r"\[constraints\] max_overlap must be a number in"):
        validate_config({"constraints": {"max_overlap": [0.2, 3.0]}}, allow_lists=True)
    with pytest.raises(ValueError, match="empty list"):
        validate_config({"objective": {"target": []}}, allow_lists=True)


def test_versus_keys_validate_against_the_registry():
    values = validate_config({"objective": {"winner": "gmm", "loser": "kmeans++",
                                            "score": "ari"}}, command="versus")
    assert values["objective"]["winner"] == "gmm"
    with pytest.raises(ValueError, match=r"\[objective\] loser: unknown algorithm 'gmn'.*'gmm'"):
        validate_config({"objective": {"loser": "gmn"}})
    with pytest.raises(ValueError, match=r"\[objective\] score: .*'ari'"):
        validate_config({"objective": {"score": "nope"}})


def test_extended_schema_for_later_sections():
    extra = config.Option("suite", "repeats", "int", 1, "runs per grid point", low=1)
    schema = (*OPTIONS, extra)
    values = validate_config({"suite": {"repeats": 3}}, options=schema)
    assert values == {"suite": {"repeats": 3}}
    with pytest.raises(ValueError, match="unknown section"):
        validate_config({"suite": {"repeats": 3}})


SUBCOMMANDS = ("generate", "versus", "features", "plot", "export", "suite")


def test_every_command_takes_its_options_from_the_schema():
    for command in SUBCOMMANDS:
        options = options_for(command, config.SCHEMA)
        keys = [o.key for o in options]
        assert len(keys) == len(set(keys)), command  # one option per key and command
        parser = argparse.ArgumentParser()
        config.add_arguments(parser, command, config.SCHEMA)
        assert {a.dest for a in parser._actions if a.dest != "help"} == set(keys)
    # command-line-only options are neither TOML keys nor settings of a run
    assert all(o.section is None for o in config.COMMAND_LINE_OPTIONS)
    assert "suite" not in config.sections(config.SCHEMA)
    with pytest.raises(ValueError, match=r"unknown key \[ga\] out"):
        validate_config({"ga": {"out": "x"}})
    assert "out" not in resolve("generate")


def test_command_line_only_options_keep_their_argparse_defaults():
    parser = argparse.ArgumentParser()
    config.add_arguments(parser, "features", config.SCHEMA)
    args = parser.parse_args(["d1", "d2"])
    assert vars(args) == {"paths": ["d1", "d2"], "metric": "sqeuclidean", "algorithms": None,
                          "preset": None, "seed": 0, "format": "table", "out": None,
                          "overwrite": False, "labels": 0, "n_jobs": 1,
                          "score": "ari", "references": "labels"}
    parser = argparse.ArgumentParser()
    config.add_arguments(parser, "generate", config.SCHEMA)
    args = parser.parse_args(["--n-samples", "300"])  # --out is required: checked after,
    with pytest.raises(ValueError, match="^--out is required$"):  # once typos are named
        config.check_command_line(args, "generate")
    args = parser.parse_args(["--out", "o", "--quiet"])
    assert (args.out, args.quiet, args.overwrite, args.config) == ("o", True, False, None)
    assert config.cli_values(args, "generate") == {}  # settings only


@pytest.mark.parametrize("command, argv, value, message", [
    ("features", ["d", "--seed", "-1"], -1, "--seed must be an integer >= 0, got -1"),
    ("plot", ["d", "--dpi", "5"], 5, r"--dpi must be an integer in \[10, 1200\], got 5"),
    ("plot", ["d", "--seed", "-1"], -1, "--seed must be an integer >= 0, got -1"),
    ("suite", ["g.toml", "--out", "o", "--workers", "0"], 0,
     r"--workers must be an integer in \[1, 1024\], got 0"),
    ("fill", ["p", "--out", "o", "--cell", "0"], 0.0, "--cell must be a number > 0, got 0.0"),
    ("fill", ["p", "--out", "o", "--min-margin", "nan"], float("nan"),
     "--min-margin must be a number, got nan"),
])
def test_command_line_bounds_are_checked_while_parsing_and_after(command, argv, value,
                                                                 message):
    # parsing converts and checks the text as a setting's (argparse names the option);
    # a negative seed once reached the clustering of a collection as a traceback
    parser = argparse.ArgumentParser(exit_on_error=False)
    config.add_arguments(parser, command, config.SCHEMA)
    flag, rest = message.split(" ", 1)
    with pytest.raises(argparse.ArgumentError, match=f"^argument {flag}: {rest}$"):
        parser.parse_args(argv)
    # a namespace built in code is checked by check_command_line, by the same rule
    args = parser.parse_args(argv[:-2])
    setattr(args, flag[2:].replace("-", "_"), value)
    with pytest.raises(ValueError, match=f"^{message}$"):
        config.check_command_line(args, command)


@pytest.mark.parametrize("extra", [{"kind": "bool", "default": False},
                                   {"required": True}, {"nargs": "+"}])
def test_flags_required_and_nargs_are_only_for_command_line_options(extra):
    fields = {"kind": "int", "default": 1, **extra}
    with pytest.raises(ValueError, match="command-line-only"):
        config.Option("ga", "x", help="h", **fields)
    config.Option(None, "x", help="h", **fields)


def test_a_key_names_one_option_per_command():
    with pytest.raises(ValueError, match="duplicate option key 'out' of the 'plot' command"):
        config._check_schema((*config.SCHEMA,
                              config.Option(None, "out", "str", None, "h", commands=("plot",))))
