"""``returns = "final-top-ranked"``: the top of the final stochastic ranking.

The authors' Index-mode script sets ``"comparison": "ranking"`` (HAWKS' ``_best_in_pop``
returns ``pop[0]`` of the ranked population); a HAWKS config that says so maps to it.
"""

from __future__ import annotations

import copy

import pytest

import hawks_deap as hd
import hawks_deap.algorithms.toolbox as toolbox_module
from hawks_deap.algorithms.result import (
    RETURNS,
    final_fittest,
    final_top_ranked,
    select_best,
)
from hawks_deap.campaign import hawks_json as hj
from hawks_deap.operators import record_penalty
from hawks_deap.settings import config


def _problem():
    return hd.IndexProblem(150, 4, 2, 0.3, constraints=[hd.Overlap(max=0.0)])


def _returns_of(data):
    hawks = hj.translate_hawks_config(data, path="x.json")
    return [point.file_values["ga"]["returns"] for point in hawks.points]


def test_a_hawks_config_with_ranking_comparison_maps_to_final_top_ranked():
    data = copy.deepcopy(hj.HAWKS_DEFAULTS)
    data["hawks"]["comparison"] = "ranking"
    assert _returns_of(data) == ["final-top-ranked"]
    data["hawks"]["comparison"] = "fitness"
    assert _returns_of(data) == ["final-fittest"]
    # the authors' Index script: a grid, "comparison": "ranking" for every configuration
    grid = {"hawks": {"comparison": "ranking", "num_runs": 7, "seed_num": 0},
            "dataset": {"num_examples": [500, 2500], "min_clust_size": 10},
            "ga": {"num_gens": 100}}
    assert _returns_of(grid) == ["final-top-ranked"] * 2
    data["hawks"]["comparison"] = "rank"
    with pytest.raises(ValueError) as info:
        hj.translate_hawks_config(data, path="x.json")
    message = str(info.value)
    assert "hawks.comparison" in message and '"rank"' in message and "x.json" in message
    assert '"fitness"' in message and '"ranking"' in message


def test_final_top_ranked_is_a_valid_returns_setting():
    assert "final-top-ranked" in RETURNS
    assert config.validate_config({"ga": {"returns": "final-top-ranked"}},
                                  command="generate")["ga"]["returns"] == "final-top-ranked"


def test_final_top_ranked_is_the_first_evaluated_individual():
    result = hd.evolve(_problem(), population_size=6, generations=2, seed=1)
    pop = result.population
    assert final_top_ranked(pop) is pop[0]
    assert final_top_ranked(iter(pop)) is pop[0]
    assert final_top_ranked([]) is None
    with pytest.raises(TypeError, match="population must hold hawks_deap individuals"):
        final_top_ranked([1, 2])


def test_evolve_returns_the_first_of_the_final_stochastic_ranking(monkeypatch):
    """The final population is the last survivor selection's output, in its order."""
    calls = []
    original = toolbox_module.sel_hawks

    def recording(individuals, k, *args, **kwargs):
        chosen = original(individuals, k, *args, **kwargs)
        calls.append((list(individuals), k, list(chosen)))
        return chosen

    monkeypatch.setattr(toolbox_module, "sel_hawks", recording)
    kwargs = {"population_size": 8, "generations": 6, "seed": 3}
    result = hd.evolve(_problem(), returns="final-top-ranked", **kwargs)
    assert len(calls) == 6  # one survivor selection per generation
    pool, k, chosen = calls[-1]
    assert k == 8 and len(pool) == 16  # parents + offspring, ranked, the first 8 kept
    assert [id(ind) for ind in result.population] == [id(ind) for ind in chosen]
    assert result.best is chosen[0] is result.population[0]
    assert result.settings["returns"] == "final-top-ranked"
    assert hd.Dataset.to_csv_text(result.best_dataset()) == hd.Dataset.to_csv_text(
        result.dataset(chosen[0]))
    monkeypatch.undo()
    # the evolution is the one of the other choices: only the returned individual differs
    default = hd.evolve(_problem(), **kwargs)
    assert list(default.logbook) == list(result.logbook)
    assert [ind.fitness.values for ind in default.population] == [
        ind.fitness.values for ind in result.population]
    assert result.best_feasible.fitness.values == default.best.fitness.values


@pytest.mark.parametrize("p_f", [0.0, 1.0])
def test_the_top_of_the_ranking_at_the_extremes_of_p_f(p_f):
    """A full ranking: p_f = 1 compares on fitness only, p_f = 0 feasibility first.

    Stochastic ranking sweeps the pool of 2P at most 2P times, enough for a bubble sort
    to finish, so the top is the best of the pool by the comparison in force.
    """
    problem = hd.IndexProblem(150, 4, 2, 0.3, constraints=[hd.Overlap(max=0.1)])
    result = hd.evolve(problem, population_size=8, generations=5, seed=7, p_f=p_f,
                       returns="final-top-ranked")
    pop, best = result.population, result.best
    assert best is pop[0]
    if p_f == 1.0:
        assert best.fitness.wvalues == max(ind.fitness.wvalues for ind in pop)
        assert best.fitness.values == final_fittest(pop).fitness.values
    else:
        penalties = [record_penalty(ind) for ind in pop]
        assert 0.0 in penalties  # the top is then the fittest feasible individual
        assert record_penalty(best) == 0.0
        assert best.fitness.values == select_best(pop).fitness.values
