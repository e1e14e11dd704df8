"""The reproducibility contract (README, "Reproducibility"), shown on real processes.

- Same environment: a seeded run in two fresh processes (with different hash seeds)
  and in this one gives the same bytes.
- Another BLAS kernel (``OPENBLAS_CORETYPE``, in subprocesses): the same evolutionary
  path exactly and the same values within the tolerance (``tolerance_used``), each also equal to the
  recorded reference in ``tests/data/seeded_reference.npz`` to that tolerance; a 2-D
  run, whose products avoid the BLAS, gives the same bytes.

The runs are cases of ``benchmarks/seeded_reference.py``: a 2-D one (KD-trees, the
Euclidean silhouette, an eccentricity constraint) and a 20-D one (matrix products),
the two where the kernels' last bits differ most.
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hawks_deap as hd

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "seeded_reference.py"
_spec = importlib.util.spec_from_file_location("seeded_reference", SCRIPT)
seeded_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seeded_reference)

CASES = ("pso-euclidean-ecc", "dense-d20")
REFERENCE = seeded_reference.load_traces(ROOT / "tests" / "data" / "seeded_reference.npz")
#: Kernels tried, in this order: FMA (Haswell) against no FMA (Sandybridge), then SSE.
KERNELS = ("Haswell", "Sandybridge", "Nehalem")


def _dump(out: Path, **env_vars: str) -> tuple[dict, dict, dict]:
    """Run the cases in a fresh process; its traces, fingerprints and environment."""
    env = {**os.environ, **env_vars}
    # the same package as this process imports (the tree, even with an installed copy)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    r = subprocess.run([sys.executable, str(SCRIPT), "--dump", str(out), "--cases", *CASES],
                       capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    return (seeded_reference.load_traces(out / "traces.npz"),
            json.loads((out / "fingerprints.json").read_text()),
            json.loads((out / "environment.json").read_text()))


def _blas_is_openblas() -> bool:
    from threadpoolctl import threadpool_info

    return any(info.get("internal_api") == "openblas" for info in threadpool_info()
               if info.get("user_api") == "blas")


def test_a_seeded_run_is_byte_identical_in_fresh_processes(tmp_path):
    first = _dump(tmp_path / "a", PYTHONHASHSEED="1")
    second = _dump(tmp_path / "b", PYTHONHASHSEED="2")
    assert first[2] == second[2]  # the same environment
    assert first[1] == second[1]  # the same bytes
    for name in CASES:
        for key, value in first[0][name].items():
            assert value.tobytes() == second[0][name][key].tobytes(), (name, key)
    # and the same as in this process, with its imports and caches
    assert seeded_reference.run(CASES[0])[1] == first[1][CASES[0]]


def test_other_blas_kernels_take_the_same_path_to_the_tolerance(tmp_path):
    if seeded_reference.cpu_flags() is None:
        pytest.skip("OpenBLAS kernels are named for x86 CPUs with /proc/cpuinfo")
    if not _blas_is_openblas():
        pytest.skip("numpy's BLAS is not OpenBLAS")
    kernels = [k for k in KERNELS if seeded_reference.kernel_support(k) is None][:2]
    if len(kernels) < 2:
        pytest.skip(f"this CPU runs fewer than two of {KERNELS}")
    runs = {}
    for kernel in kernels:
        traces, fingerprints, env = _dump(tmp_path / kernel, OPENBLAS_CORETYPE=kernel)
        # the CPU runs this kernel (above): OpenBLAS must have picked it
        assert all(lib.endswith(f" {kernel}") for lib in env["blas"]), env["blas"]
        runs[kernel] = traces, fingerprints
    (a, fa), (b, fb) = runs.values()
    # in two dimensions the products avoid the BLAS (hawks_deap.genome.products): the same bytes
    assert fa["pso-euclidean-ecc"] == fb["pso-euclidean-ecc"]
    for name in CASES:
        seeded_reference.assert_same_trace(a[name], b[name])
        for traces, _ in runs.values():
            seeded_reference.assert_same_trace(REFERENCE[name], traces[name])
    # where the kernels' bits differ, they differ far inside the tolerance
    for name in CASES:
        _, gap, rel, used = seeded_reference.differences(a[name], b[name])
        assert used < 0.1, (name, gap, rel, used)


def test_differences_report_the_path_and_the_largest_gaps():
    trace = {key: np.array(value, copy=True) for key, value in REFERENCE[CASES[0]].items()}
    assert seeded_reference.differences(REFERENCE[CASES[0]], trace)[0] == []
    trace["X"] = trace["X"] * (1 + 1e-12)
    problems, gap, rel, used = seeded_reference.differences(REFERENCE[CASES[0]], trace)
    assert problems == [] and 0 < rel <= 1.1e-12 and used < 1
    seeded_reference.assert_same_trace(REFERENCE[CASES[0]], trace)  # within tolerance
    trace["X"] = trace["X"] * (1 + 1e-7)
    with pytest.raises(AssertionError, match="values: X"):
        seeded_reference.assert_same_trace(REFERENCE[CASES[0]], trace)
    trace["population_genes"] = trace["population_genes"][:, ::-1]  # another selection
    problems = seeded_reference.differences(REFERENCE[CASES[0]], trace)[0]
    assert problems and problems[0].startswith("population_genes: differs first at")
    with pytest.raises(AssertionError, match="path: population_genes"):
        seeded_reference.assert_same_trace(REFERENCE[CASES[0]], trace)


def test_kernel_support_reads_the_cpu_flags(monkeypatch):
    monkeypatch.setattr(seeded_reference, "cpu_flags", lambda: {"avx", "avx2", "fma"})
    assert seeded_reference.kernel_support("Haswell") is None
    assert seeded_reference.kernel_support("SkylakeX").startswith("this CPU lacks avx512f")
    assert "unknown kernel" in seeded_reference.kernel_support("Pentium")
    monkeypatch.setattr(seeded_reference, "cpu_flags", lambda: None)
    assert seeded_reference.kernel_support("Haswell").startswith("no x86 CPU flags")


def test_libm_elementwise_is_the_c_librarys_function_within_one_ulp_of_numpys():
    """The operators' exp and atan2 (`genome.products.libm_elementwise`): shape kept, each
    value the `math` function's, within one unit in the last place of numpy's (which
    rounds its AVX-512 versions otherwise); unequal shapes are refused."""
    import math

    from hawks_deap.genome.products import libm_elementwise

    rng = np.random.default_rng(0)
    x = rng.normal(scale=2.0, size=(40, 3))
    y = rng.normal(size=(40, 3))
    got = libm_elementwise(math.exp, x)
    assert got.shape == x.shape and got.dtype == np.float64
    assert got[7, 2] == math.exp(x[7, 2])
    np.testing.assert_array_max_ulp(got, np.exp(x), maxulp=1)
    np.testing.assert_array_max_ulp(libm_elementwise(math.atan2, y, x), np.arctan2(y, x),
                                    maxulp=1)
    assert libm_elementwise(math.exp, np.zeros(0)).shape == (0,)
    with pytest.raises(ValueError, match=r"arrays must have one shape, got shapes"):
        libm_elementwise(math.atan2, y, x[:, :2])


def test_a_run_seeded_with_a_spawned_seed_sequence_records_how_to_repeat_it(tmp_path):
    # its entropy alone (what `seed` records) seeds another run: the spawn key is kept
    problem = hd.IndexProblem(150, 3, 2, 0.5)
    spawned = np.random.SeedSequence(0).spawn(2)[1]
    first = hd.evolve(problem, seed=spawned, population_size=4, generations=2)
    assert first.seed == 0 and first.seed_spawn_key == (1,)
    again = hd.evolve(problem, seed=np.random.SeedSequence(
        first.seed, spawn_key=first.seed_spawn_key), population_size=4, generations=2)
    assert np.array_equal(again.best_dataset().X, first.best_dataset().X)
    assert not np.array_equal(
        hd.evolve(problem, seed=first.seed, population_size=4, generations=2)
        .best_dataset().X, first.best_dataset().X)
    first.save(tmp_path / "spawned")
    meta = hd.Dataset.load(tmp_path / "spawned").metadata
    assert meta["seed"] == 0 and meta["seed_spawn_key"] == [1]
    plain = hd.evolve(problem, seed=0, population_size=4, generations=2)
    assert plain.seed_spawn_key == () and "seed_spawn_key" not in plain.best_dataset().metadata
