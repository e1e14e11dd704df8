"""Seeded Index-mode runs give the bytes recorded before the engine was restructured.

The fingerprints in ``tests/data/seeded_reference.json`` were written by
``benchmarks/seeded_reference.py --write`` on the code before the restructuring; any
change of a dataset or final population bit fails here.
"""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("seeded_reference",
                                               ROOT / "benchmarks" / "seeded_reference.py")
seeded_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seeded_reference)

EXPECTED = json.loads((ROOT / "tests" / "data" / "seeded_reference.json").read_text())
CASES = seeded_reference.CASES


def _params():
    for name, spec in CASES.items():
        marks = [pytest.mark.slow] if spec["slow"] else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_params()))
def test_seeded_run_matches_recorded_fingerprint(name):
    assert seeded_reference.fingerprint(name) == EXPECTED[name]
