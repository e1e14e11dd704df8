import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture
def small_problem():
    import hawks_deap as hd

    return hd.IndexProblem(300, 4, 2, target=0.5, constraints=[hd.Overlap(max=0.1)])
