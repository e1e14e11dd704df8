"""Seeded Index-mode runs take the recorded path, to the contract's tolerance.

``tests/data/seeded_reference.npz`` holds, per case of ``benchmarks/seeded_reference.py``,
the run's path (which genes make up the population after each generation, the logbook's
``nevals`` and ``n_feasible``, the best dataset's labels), compared exactly, and its
values (fitness after each generation, logbook columns, final fitness, the best genes,
the best dataset's points or their summary), compared with
the package's tolerance (`tolerance_used` <= 1): the same on every machine, whatever BLAS
kernel computes the last bits (``.ci/run`` runs this file under several OpenBLAS
kernels). Where ``tests/data/seeded_hashes.json`` holds fingerprints recorded in this
very environment (same library versions and kernels), the bytes are checked too.

After a change that changes results, rewrite both (and say why in the commit):

    python benchmarks/seeded_reference.py --write tests/data/seeded_reference.npz
    python benchmarks/seeded_reference.py --record-hashes tests/data/seeded_hashes.json --slow
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

DATA = ROOT / "tests" / "data"
EXPECTED = seeded_reference.load_traces(DATA / "seeded_reference.npz")
HASHES = json.loads((DATA / "seeded_hashes.json").read_text())
CASES = seeded_reference.CASES


@pytest.fixture(scope="module")
def recorded_here():
    """The fingerprints recorded for this environment, or None."""
    return HASHES.get(seeded_reference.environment_key())


def _params():
    for name, spec in CASES.items():
        marks = [pytest.mark.slow] if spec["slow"] else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_params()))
def test_seeded_run_takes_the_recorded_path(name, recorded_here):
    trace, fingerprint = seeded_reference.run(name)
    seeded_reference.assert_same_trace(EXPECTED[name], trace)
    if recorded_here is not None and name in recorded_here:
        assert fingerprint == recorded_here[name], (
            "same path and values, other bytes than recorded in this environment: a "
            "change of a computation (record anew with benchmarks/seeded_reference.py "
            "--record-hashes after --write)")


def test_every_case_is_recorded():
    assert sorted(EXPECTED) == sorted(CASES)
    for key, recorded in HASHES.items():
        assert sorted(recorded) == sorted(CASES), key


def test_the_tolerance_is_the_documented_one():
    assert (seeded_reference.RTOL, seeded_reference.ATOL) == (1e-9, 1e-12)
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "`atol=1e-12` + `rtol=1e-9` of each kind's largest magnitude" in readme


@pytest.mark.parametrize("name", ["pso-sqeuclidean-ecc", "mid-d6", "dense-d20"])
def test_the_bytes_do_not_depend_on_numpys_simd_level(name, highest_simd_level):
    """numpy picks its SIMD kernels by CPU, and its AVX-512 exp and arctan2 round the last
    bit otherwise than the C library, which it uses below AVX-512: the runs take the C
    library's, so turning the CPU's highest level off changes no byte (2-D, 6-D and 20-D
    runs, covariance mutations included)."""
    import os
    import subprocess
    import sys

    level = highest_simd_level
    code = ("import importlib.util, json, sys; "
            "spec = importlib.util.spec_from_file_location('sr', sys.argv[1]); "
            "sr = importlib.util.module_from_spec(spec); spec.loader.exec_module(sr); "
            "print(sr.environment_key()); print(json.dumps(sr.fingerprint(sys.argv[2])))")
    out = subprocess.run([sys.executable, "-c", code,
                          str(ROOT / "benchmarks" / "seeded_reference.py"), name],
                         capture_output=True, text=True, check=True, timeout=300,
                         env={**os.environ, "NPY_DISABLE_CPU_FEATURES": level})
    key, lowered = out.stdout.splitlines()
    assert f"numpy SIMD up to {level};" not in key  # the level was really off
    assert json.loads(lowered) == seeded_reference.fingerprint(name)
