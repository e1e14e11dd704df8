"""Provenance: every run records its environment; `verify` re-runs a saved run and compares.

The contract (hawks_deap.campaign.provenance): same environment, same bytes (every file);
another BLAS kernel, the same path and values within ATOL + RTOL times the largest value
of their kind, with the environment's differences named.
"""

import json
import os
import subprocess
import sys
from importlib import metadata
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap.campaign import provenance
from hawks_deap.cli import main

SMALL = ["--n-samples", "120", "--n-clusters", "3", "--generations", "4",
         "--population-size", "6", "--quiet"]


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _openblas_numpy() -> bool:
    from threadpoolctl import threadpool_info

    return any(i.get("internal_api") == "openblas" for i in threadpool_info())


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("prov") / "run"
    assert main(["generate", *SMALL, "--n-dims", "5", "--seed", "3", "--out", str(out)]) == 0
    return out


def test_metadata_records_versions_platform_and_native_libraries(run_dir):
    env = json.loads((run_dir / "metadata.json").read_text())["environment"]
    import deap
    import scipy
    import sklearn

    libs = env["libraries"]
    assert libs["numpy"] == np.__version__ and libs["scipy"] == scipy.__version__
    assert libs["scikit-learn"] == sklearn.__version__
    assert libs["deap"] == version("deap") and libs["deap"].startswith(deap.__version__)
    assert libs["hawks-deap"] == hd.__version__
    assert env["python"].startswith(".".join(map(str, sys.version_info[:2])))
    assert env["platform"] and env["machine"]
    blas = [lib for lib in env["native"] if lib["user_api"] == "blas"]
    assert blas, env["native"]  # numpy's BLAS at least, with the kernel it picked
    assert all("num_threads" not in lib for lib in env["native"])  # no thread counts
    assert env == provenance.environment()  # this process: the same record


def test_environment_does_not_depend_on_what_the_process_imported():
    # a fresh interpreter that imports nothing but the package records the same
    code = ("import json; from hawks_deap.campaign.provenance import environment; "
            "print(json.dumps(environment(), sort_keys=True))")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert json.loads(fresh.stdout) == provenance.environment()


def test_environment_loads_sklearns_openmp_without_importing_sklearn():
    # the record lists scikit-learn's OpenMP runtime whether or not the process imported
    # scikit-learn; with a wheel that ships the runtime, recording it imports nothing of
    # scikit-learn (about 1 s of an Index run's start-up)
    record = ("import json, sys; from hawks_deap.io.environment import environment; "
              "env = environment(); print(json.dumps([env, 'sklearn' in sys.modules]))")
    fresh_env, imported = json.loads(subprocess.run(
        [sys.executable, "-c", record], capture_output=True, text=True, check=True).stdout)
    clustered_env, _ = json.loads(subprocess.run(
        [sys.executable, "-c", "import sklearn.cluster; " + record], capture_output=True,
        text=True, check=True).stdout)
    assert fresh_env == clustered_env
    from hawks_deap.io import environment as environment_module

    shipped = [f for f in metadata.files("scikit-learn") or []
               if f.name.lower().startswith(environment_module._OPENMP_RUNTIMES)]
    assert imported == (not shipped)
    if shipped:
        assert any(lib["user_api"] == "openmp" for lib in fresh_env["native"])


def test_environment_differences_names_each_changed_entry():
    env = provenance.environment()
    assert provenance.environment_differences(env, env) == []
    other = json.loads(json.dumps(env))
    other["libraries"]["numpy"] = "0.0.1"
    if other["native"]:
        other["native"][0]["architecture"] = "Elsewhere"
    lines = provenance.environment_differences(env, other)
    assert f"libraries.numpy: {env['libraries']['numpy']} -> 0.0.1" in lines
    if env["native"]:
        assert any(line.endswith("architecture: "
                                 f"{env['native'][0]['architecture']} -> Elsewhere")
                   for line in lines)
    assert provenance.environment_differences(None) == [
        "no environment recorded (its metadata.json has no environment entry)"]


def test_verify_reports_identical_here(run_dir, capsys):
    outcome = provenance.verify(run_dir)
    assert outcome.identical and outcome.same_path and outcome.within_tolerance
    assert outcome.max_abs_difference == 0.0 and outcome.environment_differences == []
    assert main(["verify", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "identical (every file, byte for byte); same environment" in out


@pytest.mark.parametrize("n_jobs", [0, 10**6, 2.0])
def test_verify_refuses_a_bad_n_jobs_before_reading_the_run(tmp_path, n_jobs):
    # the same bounds as evolve and the command line (check_workers), checked first:
    # the folder does not even exist
    error = TypeError if isinstance(n_jobs, float) else ValueError
    with pytest.raises(error, match="n_jobs"):
        provenance.verify(tmp_path / "missing", n_jobs=n_jobs)


def test_verify_finds_a_changed_point_and_changed_labels(run_dir, tmp_path, capsys):
    import shutil

    moved = tmp_path / "moved"
    shutil.copytree(run_dir, moved)
    lines = (moved / "data.csv").read_text().splitlines()
    row = lines[5].split(",")
    row[0] = repr(float(row[0]) + 1e-3)
    lines[5] = ",".join(row)
    (moved / "data.csv").write_text("\n".join(lines) + "\n")
    outcome = provenance.verify(moved)
    assert not outcome.identical and outcome.same_path and not outcome.within_tolerance
    assert outcome.max_abs_difference == pytest.approx(1e-3, rel=1e-6)
    assert main(["verify", str(moved)]) == 1
    assert "DIFFERENT values" in capsys.readouterr().out

    relabelled = tmp_path / "relabelled"
    shutil.copytree(run_dir, relabelled)
    lines = (relabelled / "data.csv").read_text().splitlines()
    first, second = lines[1].split(","), lines[-1].split(",")
    first[-1], second[-1] = second[-1], first[-1]
    lines[1], lines[-1] = ",".join(first), ",".join(second)
    (relabelled / "data.csv").write_text("\n".join(lines) + "\n")
    outcome = provenance.verify(relabelled)
    assert not outcome.same_path and not outcome.within_tolerance

    # one label changed: the cluster sizes no longer match genes.json, so the folder no
    # longer loads as a dataset; it is still a verdict, and the other runs get theirs
    # (found from outside: the whole command stopped with "error while running")
    resized = tmp_path / "resized"
    shutil.copytree(run_dir, resized)
    lines = (resized / "data.csv").read_text().splitlines()
    row = lines[1].split(",")
    row[-1] = str(1 - int(row[-1]) if row[-1] in ("0", "1") else 0)
    lines[1] = ",".join(row)
    (resized / "data.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="do not match the data file's labels"):
        hd.Dataset.load(resized)
    outcome = provenance.verify(resized)
    assert not outcome.identical and not outcome.same_path and not outcome.within_tolerance
    assert outcome.differing == ("data.csv",)
    capsys.readouterr()
    assert main(["verify", str(resized), str(run_dir)]) == 1
    out = capsys.readouterr().out
    assert f"{resized}: DIFFERENT path in data.csv" in out
    assert f"{run_dir}: identical" in out


def _edited(run_dir, tmp_path, name, edit):
    import shutil

    copy = tmp_path / name
    shutil.copytree(run_dir, copy)
    edit(copy)
    return copy


def _edit_json(file, edit):
    data = json.loads(file.read_text())
    edit(data)
    file.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def test_verify_compares_every_file_the_run_wrote(run_dir, tmp_path, capsys):
    """An edited metadata value, a deleted logbook, an edited count: never "identical"."""
    def index(copy):
        _edit_json(copy / "metadata.json", lambda m: m["record"].update(index=0.9))

    outcome = provenance.verify(_edited(run_dir, tmp_path, "index", index))
    assert not outcome.identical and outcome.same_path and not outcome.within_tolerance
    assert outcome.differing == ("metadata.json",) and not outcome.holds

    def sizes(copy):
        _edit_json(copy / "metadata.json", lambda m: m.update(sizes=m["sizes"][::-1]))

    outcome = provenance.verify(_edited(run_dir, tmp_path, "sizes", sizes))
    assert not outcome.same_path and not outcome.holds  # integers are the path's

    gone = _edited(run_dir, tmp_path, "gone", lambda c: (c / "logbook.csv").unlink())
    outcome = provenance.verify(gone)
    assert outcome.missing == ("logbook.csv",) and not outcome.identical
    assert not outcome.within_tolerance and not outcome.holds
    assert main(["verify", str(gone)]) == 1
    assert "INCOMPLETE (not in the folder: logbook.csv)" in capsys.readouterr().out

    def nevals(copy):
        lines = (copy / "logbook.csv").read_text().splitlines()
        row = lines[2].split(",")
        row[1] = str(int(row[1]) - 1)
        lines[2] = ",".join(row)
        (copy / "logbook.csv").write_text("\n".join(lines) + "\n")

    outcome = provenance.verify(_edited(run_dir, tmp_path, "nevals", nevals))
    assert not outcome.same_path and outcome.differing == ("logbook.csv",)
    assert main(["verify", str(tmp_path / "nevals")]) == 1
    assert "DIFFERENT path in logbook.csv" in capsys.readouterr().out


def test_verify_in_the_same_environment_needs_the_same_bytes(run_dir, tmp_path, capsys):
    """Within the tolerance is the contract elsewhere; here the bytes must be the same."""
    def nudge(copy):
        lines = (copy / "data.csv").read_text().splitlines()
        row = lines[3].split(",")
        row[0] = repr(float(row[0]) * (1 + 1e-14))
        lines[3] = ",".join(row)
        (copy / "data.csv").write_text("\n".join(lines) + "\n")

    nudged = _edited(run_dir, tmp_path, "nudged", nudge)
    outcome = provenance.verify(nudged)
    assert outcome.within_tolerance and not outcome.identical
    assert outcome.environment_differences == [] and not outcome.holds
    assert 0 < outcome.tolerance_used < 1e-3
    assert main(["verify", str(nudged)]) == 1
    assert "NOT identical although the environment is the same" in capsys.readouterr().out
    elsewhere = provenance.Verification(**{**vars(outcome),
                                           "environment_differences": ["numpy: 1 -> 2"]})
    assert elsewhere.holds


def test_verify_compares_a_versus_runs_partitions(tmp_path, capsys):
    out = tmp_path / "duel"
    assert main(["versus", "kmeans++", "single-linkage", "--n-samples", "60",
                 "--n-clusters", "2", "--generations", "2", "--population-size", "4",
                 "--n-jobs", "1", "--seed", "1", "--quiet", "--out", str(out)]) == 0
    assert provenance.verify(out, n_jobs=1).identical

    def swap(copy):
        lines = (copy / "partitions.csv").read_text().splitlines()
        winner, loser = lines[1].split(",")
        lines[1] = f"{1 - int(winner)},{loser}"
        (copy / "partitions.csv").write_text("\n".join(lines) + "\n")

    outcome = provenance.verify(_edited(out, tmp_path, "swapped", swap), n_jobs=1)
    assert not outcome.same_path and outcome.differing == ("partitions.csv",)
    gone = _edited(out, tmp_path, "gone", lambda c: (c / "partitions.csv").unlink())
    assert provenance.verify(gone, n_jobs=1).missing == ("partitions.csv",)


def test_tolerance_used_is_normwise():
    """A value near zero carries the rounding of the larger values of its kind."""
    old = np.array([3.9, -2.0, 1e-12])
    new = old + np.array([0.0, 0.0, 1.5e-11])  # 15x an absolute 1e-12, 4e-12 of the norm
    assert provenance.tolerance_used(old, new) == pytest.approx(1.5e-11 / (1e-12 + 1e-9 * 3.9))
    assert provenance.tolerance_used(old, old.copy()) == 0.0
    assert provenance.tolerance_used(old, old * (1 + 2e-9)) > 1
    assert provenance.tolerance_used(old, old[:2]) == np.inf
    assert provenance.tolerance_used([np.nan, 1.0], [np.nan, 1.0]) == 0.0
    assert provenance.tolerance_used([np.nan, 1.0], [1.0, np.nan]) == np.inf
    assert provenance.tolerance_used([np.inf, 1.0], [np.inf, 1.0]) == 0.0
    assert provenance.tolerance_used([np.inf, 1.0], [1.0, 1.0]) == np.inf
    assert provenance.tolerance_used([0.0, 0.0], [0.0, 1e-300]) < 1e-280
    # a fitness near its target: 2.8e-14 apart at 2.4e-5 (the rounding of silhouettes
    # near 0.5, seen under another kernel), within ATOL
    assert provenance.tolerance_used([2.4e-5], [2.4e-5 + 2.8e-14]) == pytest.approx(
        2.8e-14 / (1e-12 + 1e-9 * 2.4e-5), rel=1e-3)
    # never tighter than the element-wise rule
    rng = np.random.default_rng(0)
    a = rng.normal(size=50) * 10.0 ** rng.integers(-14, 3, size=50)
    b = a + (1e-12 + 1e-9 * np.abs(a)) * rng.uniform(-1, 1, size=50)
    assert provenance.tolerance_used(a, b) <= 1.0


def test_verify_refuses_a_dataset_without_a_recorded_run(tmp_path, capsys):
    X, y, dataset = hd.make_hawks(n_samples=60, n_clusters=3, random_state=0,
                                  return_model=True, generations=2)
    dataset.metadata.pop("command", None)
    dataset.save(tmp_path / "api")
    assert main(["verify", str(tmp_path / "api")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not record a run's command" in err[0]
    assert main(["verify", str(tmp_path / "missing")]) == 2


def test_suite_json_records_the_environment_and_still_resumes(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text("[dataset]\nn_samples = 90\nn_clusters = 3\n[ga]\ngenerations = 2\n"
                    "population_size = 4\n[suite]\nruns = 1\nseed = 5\n")
    out = tmp_path / "s"
    assert main(["suite", str(grid), "--out", str(out), "--quiet"]) == 0
    recorded = json.loads((out / "suite.json").read_text())
    assert recorded["environment"] == provenance.environment()
    # resuming the same grid is not refused because of the environment entry
    assert main(["suite", str(grid), "--out", str(out), "--quiet"]) == 0
    run = next((out / "runs").iterdir())
    assert provenance.verify(run).identical


def test_verify_of_a_suite_folder_repeats_each_of_its_runs(tmp_path, capsys):
    """`verify SUITE` reads the folder as `features`, `plot` and `export` do: every run
    under its runs/, in order; a folder of no runs, or holding a battery, is refused."""
    grid = tmp_path / "grid.toml"
    grid.write_text("[dataset]\nn_samples = 90\nn_clusters = 3\n[ga]\ngenerations = 2\n"
                    "population_size = 4\n[suite]\nruns = 2\nseed = 5\n")
    out = tmp_path / "s"
    assert main(["suite", str(grid), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == [
        str(out / "runs" / name) for name in ("c000-r00", "c000-r01")]
    assert all("identical" in line for line in lines)
    # a changed run among them fails the whole command, and is named
    data = out / "runs" / "c000-r01" / "data.csv"
    text = data.read_text().splitlines()
    first = text[1].split(",")
    first[0] = repr(float(first[0]) + 1.0)
    data.write_text("\n".join([text[0], ",".join(first), *text[2:]]) + "\n")
    assert main(["verify", str(out)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert "identical" in lines[0] and "identical" not in lines[1]
    # neither a run nor a folder of runs: one line, exit 2, before any work
    (tmp_path / "empty").mkdir()
    assert main(["verify", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is neither a run directory" in err[0] and "empty" in err[0]
    from hawks_deap.io.batteries import write_battery

    dataset = hd.Dataset.load(out / "runs" / "c000-r00")
    write_battery([dataset], tmp_path / "mixed", battery="bat", names=["one"])
    assert main(["verify", str(tmp_path / "mixed")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "battery" in err[0]


# OpenBLAS kernels and the CPU flags they need
_KERNELS = {"Haswell": {"avx2", "fma"}, "Sandybridge": {"avx"}, "Nehalem": {"sse4_2"}}


def _other_kernel() -> str | None:
    """A kernel this CPU runs that this process does not use (None: none, or no OpenBLAS)."""
    if not _openblas_numpy():
        return None
    used = {lib.get("architecture") for lib in provenance.environment()["native"]}
    flags = _cpu_flags()
    return next((k for k, need in _KERNELS.items() if need <= flags and k not in used), None)


@pytest.mark.skipif(_other_kernel() is None,
                    reason="needs OpenBLAS and a CPU that runs another of its kernels")
def test_verify_under_another_blas_kernel_names_it(run_dir):
    # the acceptance: regenerating reports "identical" here and, under another kernel,
    # the same path, the largest difference, and the kernel that differs
    kernel = _other_kernel()
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel}
    code = ("import json, sys; from hawks_deap.campaign.provenance import verify; "
            "v = verify(sys.argv[1]); print(json.dumps([v.same_path, v.within_tolerance, "
            "v.max_abs_difference, v.environment_differences, v.holds]))")
    done = subprocess.run([sys.executable, "-c", code, str(run_dir)], capture_output=True,
                          text=True, env=env, check=True)
    same_path, within, largest, differences, holds = json.loads(done.stdout)
    assert same_path and within and holds and largest < 1e-9
    assert any("architecture" in line and line.endswith(f"-> {kernel}")
               for line in differences)


def _byte_identical_kernels() -> list[str]:
    """The kernels of `_KERNELS` this CPU runs: those under which 2-D runs are the same bytes.

    SkylakeX (AVX-512) is not among them: its level-1 routines round the 2-D Haar
    rotation's QR otherwise (README, "Reproducibility"; BENCHMARKS.md).
    """
    if not _openblas_numpy():
        return []
    flags = _cpu_flags()
    return [k for k, need in _KERNELS.items() if need <= flags]


@pytest.mark.skipif(len(_byte_identical_kernels()) < 2,
                    reason="needs OpenBLAS and a CPU that runs two of its AVX2-or-older kernels")
def test_a_2d_run_is_byte_identical_under_another_kernel(tmp_path):
    # README, "Reproducibility": 2-D runs compute their products without the BLAS, so
    # every file (data.csv, genes.json with its covariances) is the same bytes under
    # AVX2 and older kernels; the run is made under one of them whatever this machine's
    # OpenBLAS picks by itself (SkylakeX on an AVX-512 machine) and verified under another
    made, other = _byte_identical_kernels()[:2]
    out = tmp_path / "run2d"
    generate = ("import sys; from hawks_deap.cli import main; "
                "sys.exit(main(['generate', *sys.argv[2:], '--seed', '4', '--out', sys.argv[1]]))")
    subprocess.run([sys.executable, "-c", generate, str(out), *SMALL],
                   env={**os.environ, "OPENBLAS_CORETYPE": made}, check=True)
    code = ("import sys; from hawks_deap.campaign.provenance import verify; "
            "v = verify(sys.argv[1]); print(v.identical, v.max_abs_difference)")
    done = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True,
                          text=True, env={**os.environ, "OPENBLAS_CORETYPE": other},
                          check=True)
    assert done.stdout.split() == ["True", "0.0"]


def test_the_record_names_numpys_simd_level_and_verify_sees_it_change(highest_simd_level):
    """numpy picks some kernels by CPU (its AVX-512 exp rounds otherwise): a record holds
    the dispatch targets, and a process with the highest one off differs there."""
    top = highest_simd_level
    assert top in provenance.environment()["numpy_simd"]
    code = ("import json; from hawks_deap.campaign import provenance; "
            "print(json.dumps(provenance.environment()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120,
                         env={**os.environ, "NPY_DISABLE_CPU_FEATURES": top})
    lowered = json.loads(out.stdout)
    assert top not in lowered["numpy_simd"]
    lines = provenance.environment_differences(lowered)
    assert any(line.startswith("numpy_simd") for line in lines), lines
