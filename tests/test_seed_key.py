"""Suite seeds come from an explicit, versioned key (issue 32, item 2).

The oracle is ``tests/data/suite_seeds_v1.json``: the seeds of every task of varied
grids (TOML grids of both modes, presets, constraints stated and removed,
``eccentricity_of`` and ``returns`` stated, HAWKS 0.2.0 JSON grids), recorded with the
code before the key had versions (`benchmarks/suite_seeds.py`). They must never move:
not with a new version of the package, not when an option, a constraint or a mean
operator is added by the recipes of ``docs/ARCHITECTURE.md``.
"""

import dataclasses
import importlib.util
import json
import types
from pathlib import Path

import numpy as np
import pytest

from hawks_deap.campaign import hawks_json as hj
from hawks_deap.campaign import runs
from hawks_deap.campaign import suite as hs
from hawks_deap.operators import mutation
from hawks_deap.problems import constraints
from hawks_deap.settings import config, model

ROOT = Path(__file__).resolve().parents[1]
RECORDED = json.loads((ROOT / "tests" / "data" / "suite_seeds_v1.json").read_text())
CASES = RECORDED["cases"]
_spec = importlib.util.spec_from_file_location("suite_seeds",
                                               ROOT / "benchmarks" / "suite_seeds.py")
suite_seeds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite_seeds)


def seeds(case, folder):
    return suite_seeds.tasks(suite_seeds.build(case, folder))


def toml_case(name, text):
    return {"name": name, "kind": "toml", "grid": text, "preset": None, "ga": None}


def add_setting(monkeypatch, option):
    """Add a field described by ``option`` to its section's settings class, as the recipe
    does (a field with its `Option` in ``hawks_deap/settings/model.py``).

    The section's class becomes a subclass with the new field last; the schema
    (`config.OPTIONS`, read off the classes) and the defaults bound to it (``resolve``,
    ``validate_config``, ...) follow, as they do when the class itself holds the field.
    """
    section = {"dataset": "DatasetSettings", "constraints": "ConstraintSettings",
               "ga": "GASettings"}.get(option.section) or (
        "IndexObjective" if "generate" in option.commands else "VersusObjective")
    old_cls = getattr(model, section)
    new_cls = dataclasses.make_dataclass(
        old_cls.__name__, [(option.key, object, dataclasses.field(
            default=option.default, metadata={"option": option}))],
        bases=(old_cls,), frozen=True)
    monkeypatch.setattr(model, section, new_cls)
    monkeypatch.setattr(model, "SECTIONS", tuple(new_cls if c is old_cls else c
                                                 for c in model.SECTIONS))
    monkeypatch.setattr(model, "_OBJECTIVES", {k: new_cls if c is old_cls else c
                                               for k, c in model._OBJECTIVES.items()})
    old, new = config.OPTIONS, model.setting_options()
    for module in (config, hs, hj, runs):
        for fn in list(vars(module).values()):
            if not isinstance(fn, types.FunctionType):
                continue
            if fn.__defaults__ and any(d is old for d in fn.__defaults__):
                monkeypatch.setattr(fn, "__defaults__",
                                    tuple(new if d is old else d for d in fn.__defaults__))
            if fn.__kwdefaults__ and any(d is old for d in fn.__kwdefaults__.values()):
                monkeypatch.setattr(fn, "__kwdefaults__", {
                    k: new if d is old else d for k, d in fn.__kwdefaults__.items()})
    monkeypatch.setattr(config, "OPTIONS", new)
    monkeypatch.setattr(config, "SCHEMA", (*new, *config.COMMAND_LINE_OPTIONS))
    assert config.resolve("generate" if "generate" in option.commands else "versus"
                          )[option.key] == option.default


class Spread(constraints.Constraint):
    """The constraint recipe's example: the largest coordinate range of the data."""

    measure = "spread"

    def compute(self, genotype, X, labels):
        return float(np.ptp(X, axis=0).max())


@pytest.fixture
def spread(monkeypatch):
    """The constraint recipe: a `Spread` constraint and its ``max_spread`` option."""
    monkeypatch.setitem(constraints.CONSTRAINTS, "spread", Spread)
    add_setting(monkeypatch, config.Option(
        "constraints", "max_spread", "float", None,
        "spread constraint: every coordinate's range at most this", low=0.0, nullable=True))


# --------------------------------------------------------------------------- the record


def test_the_recorded_seeds_are_reproduced_exactly(tmp_path):
    assert RECORDED["key_version"] == hs.SEED_KEY_VERSION == 1
    assert len(CASES) >= 15 and sum(len(c["tasks"]) for c in CASES) >= 500
    kinds = {c["kind"] for c in CASES}
    assert kinds == {"toml", "hawks"}
    for case in CASES:
        assert seeds(case, tmp_path) == case["tasks"], case["name"]


def test_derive_seed_is_the_seed_of_the_task(tmp_path):
    for case in CASES:
        suite = suite_seeds.build(case, tmp_path)
        task = suite.tasks()[-1]
        keyed = (suite.key_configurations or suite.configurations)[-1]
        assert task.seed == hs.derive_seed(suite.seed, keyed, task.run, command=suite.command)
        assert task.metadata["seed_key"] == 1


# --------------------------------------------------------------------------- recipes


def test_a_new_constraint_and_its_option_at_the_default_change_no_seed(tmp_path, spread):
    for case in CASES:
        assert seeds(case, tmp_path) == case["tasks"], case["name"]


def test_stating_the_new_option_at_its_default_changes_no_seed(tmp_path, spread):
    case = next(c for c in CASES if c["name"] == "constraints-stated-and-none")
    stated = {**case, "grid": case["grid"] + 'max_spread = "none"\n'}
    assert seeds(stated, tmp_path) == case["tasks"]


def test_a_grid_stating_the_new_option_gets_other_seeds(tmp_path, spread):
    case = next(c for c in CASES if c["name"] == "constraints-stated-and-none")
    stated = {**case, "grid": case["grid"] + "max_spread = 20.0\n"}
    suite = suite_seeds.build(stated, tmp_path)
    assert all(values["max_spread"] == 20.0 for values in suite.configurations)
    problem = runs.build_problem(suite.command, suite.configurations[0])
    assert Spread(max=20.0) in problem.constraints  # the recipe really works
    now = suite_seeds.tasks(suite)
    assert [t[:2] for t in now] == [t[:2] for t in case["tasks"]]
    assert not {t[2] for t in now} & {t[2] for t in case["tasks"]}


@pytest.mark.parametrize(("option", "value"), [
    (config.Option("ga", "tournament_size", "int", 2, "parents' tournament size", low=2), 3),
    (config.Option("objective", "noise", "float", 0.0, "share of noise points", low=0.0,
                   high=1.0, commands=("generate",)), 0.1),
    (config.Option("dataset", "noise_share", "float", None, "noise", low=0.0,
                   nullable=True), 0.2),
])
def test_any_new_option_at_its_default_changes_no_seed(tmp_path, monkeypatch, option, value):
    add_setting(monkeypatch, option)
    for case in CASES:
        assert seeds(case, tmp_path) == case["tasks"], case["name"]
    values = config.resolve("generate")
    values.pop("seed"), values.pop("n_jobs")
    assert hs.derive_seed(3, values, 1) != hs.derive_seed(3, {**values, option.key: value}, 1)


def test_a_new_mean_operator_changes_no_seed(tmp_path, monkeypatch):
    def mut_mean_stay(individual, cluster, rng=None):
        return (individual,)

    monkeypatch.setitem(mutation.MEAN_MUTATIONS, "stay", mut_mean_stay)
    for case in CASES:
        assert seeds(case, tmp_path) == case["tasks"], case["name"]
    case = next(c for c in CASES if c["name"] == "index-defaults-only")
    stay = seeds({**case, "grid": case["grid"] + '[ga]\nmean_mutation = "stay"\n'}, tmp_path)
    assert not {t[2] for t in stay} & {t[2] for t in case["tasks"]}


# --------------------------------------------------------------------------- the key


def test_the_key_is_the_v1_settings_and_later_ones_off_their_defaults():
    values = {k: v for k, v in config.resolve("generate").items() if k not in ("seed", "n_jobs")}
    key = hs.seed_key(values)
    assert set(key) == hs.SEED_KEYS[1]["generate"]
    assert "returns" in hs.seed_key({**values, "returns": "final-fittest"})
    # a setting with an option enters off its default (None: the problem's own); a HAWKS
    # config's setting without an option (equal_sizes) whenever present
    assert "min_size" not in key and values["min_size"] is None
    assert hs.seed_key({**values, "min_size": 2})["min_size"] == 2
    assert hs.seed_key({**values, "equal_sizes": False})["equal_sizes"] is False
    versus = {k: v for k, v in config.resolve("versus").items() if k not in ("seed", "n_jobs")}
    assert set(hs.seed_key(versus, "versus")) == hs.SEED_KEYS[1]["versus"]
    with pytest.raises(ValueError, match="no seed key version 2"):
        hs.seed_key(values, version=2)
    with pytest.raises(ValueError, match="for command 'suite'"):
        hs.seed_key(values, "suite")


def test_the_key_version_is_recorded_and_old_suite_folders_resume(tmp_path):
    case = next(c for c in CASES if c["name"] == "index-defaults-only")
    suite = suite_seeds.build(case, tmp_path)
    assert suite.describe()["seed_key"] == 1
    out = tmp_path / "out"
    out.mkdir()
    before = {k: v for k, v in suite.describe().items() if k != "seed_key"}
    (out / hs.GRID_FILE).write_text(json.dumps(before))  # a suite.json before key versions
    hs.check_output(out, suite)
    (out / hs.GRID_FILE).write_text(json.dumps({**before, "seed_key": 2}))
    with pytest.raises(ValueError, match="holds a different suite"):
        hs.check_output(out, suite)


def test_the_constraint_recipe_reaches_the_command_line_toml_and_the_features(
        tmp_path, spread):
    """The recipe's two edits (a `Constraint` in CONSTRAINTS, a field in
    ConstraintSettings) and nothing else: ``--max-spread`` on the command line, ``[constraints]
    max_spread`` in a TOML file, the run's record and its saved metadata."""
    import json

    from hawks_deap import cli

    small = ["--n-samples", "60", "--n-clusters", "3", "--generations", "2",
             "--population-size", "4", "--quiet"]
    assert cli.main(["generate", *small, "--max-spread", "50", "--out",
                     str(tmp_path / "cli")]) == 0
    meta = json.loads((tmp_path / "cli" / "metadata.json").read_text())
    assert meta["command"]["settings"]["max_spread"] == 50.0
    assert {"type": "Spread", "min": None, "max": 50.0} in meta["problem"]["constraints"]
    assert "spread" in meta["record"]
    toml = tmp_path / "run.toml"
    toml.write_text("[constraints]\nmax_spread = 40.0\n")
    assert cli.main(["generate", *small, "--config", str(toml), "--out",
                     str(tmp_path / "toml")]) == 0
    meta = json.loads((tmp_path / "toml" / "metadata.json").read_text())
    assert {"type": "Spread", "min": None, "max": 40.0} in meta["problem"]["constraints"]
    assert cli.main(["generate", *small, "--max-spread", "-1", "--out",
                     str(tmp_path / "bad")]) == 2  # its bounds are checked like any option
