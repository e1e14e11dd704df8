"""Every example runs with --quick."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs_quick(path, tmp_path):
    r = subprocess.run([sys.executable, str(path), "--quick"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=600, env={**__import__("os").environ,
                                                       "MPLBACKEND": "Agg"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip()


def test_operator_study_takes_a_custom_operator(tmp_path):
    ops = tmp_path / "my_ops.py"
    ops.write_text(
        "def mut_mean_towards_centre(individual, cluster, rng, *, global_mean):\n"
        "    mu = individual[cluster].mean\n"
        "    individual[cluster] = individual[cluster].with_mean(\n"
        "        mu + rng.uniform() * (global_mean - mu))\n"
        "    return (individual,)\n")
    study = Path(__file__).parent.parent / "examples" / "operator_study.py"
    spec = f"{ops}:mut_mean_towards_centre"
    r = subprocess.run([sys.executable, str(study), "--quick", "--workers", "1",
                        "--operator", spec], capture_output=True, text=True, cwd=tmp_path,
                       timeout=600, env={**__import__("os").environ, "MPLBACKEND": "Agg"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"| {spec} |" in r.stdout  # its own rows in the table
    bad = subprocess.run([sys.executable, str(study), "--quick", "--operator",
                          f"{ops}:missing"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=600)
    assert bad.returncode == 2 and "--operator" in bad.stderr


def test_operator_study_gaussian_dims_changes_only_the_original(tmp_path):
    import json

    study = Path(__file__).parent.parent / "examples" / "operator_study.py"
    summaries = {}
    for dims in ("each", "all"):
        r = subprocess.run([sys.executable, str(study), "--quick", "--workers", "1",
                            "--dims", "50", "--gaussian-dims", dims, "--out", dims],
                           capture_output=True, text=True, cwd=tmp_path, timeout=600,
                           env={**__import__("os").environ, "MPLBACKEND": "Agg"})
        assert r.returncode == 0, r.stdout + r.stderr
        assert f"dims={dims!r}" in r.stdout
        rows = json.loads((tmp_path / dims / "summary.json").read_text())
        summaries[dims] = {(row["operator"], row["target"], row["init"]): row for row in rows}
    each, every = summaries["each"], summaries["all"]
    assert each.keys() == every.keys()
    for key in each:  # the seeds do not depend on the option: only the original moves
        same = each[key] == every[key]
        assert same is (key[0] != "gaussian"), key
    mixed = subprocess.run([sys.executable, str(study), "--quick", "--gaussian-dims", "all",
                            "--out", "each"], capture_output=True, text=True, cwd=tmp_path,
                           timeout=600)
    assert mixed.returncode == 2 and "holds runs with gaussian_dims='each'" in mixed.stderr


def test_fidelity_index_quick_and_its_report_of_the_first_runs_only(tmp_path):
    script = Path(__file__).parent.parent / "benchmarks" / "fidelity_index.py"

    def run(*args):
        r = subprocess.run([sys.executable, str(script), *args, "--out", str(tmp_path)],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout

    full = run("all", "--quick", "--workers", "1")
    assert "| all | final-fittest | hawks-tevc |" in full  # the "all" runs, substituted
    assert "| any | final-top-ranked | default |" in full  # the authors' script's pick
    assert "Eccentricity aggregation alone: the 8 runs" in full
    none = run("report", "--all-runs", "0")  # as `evolve --all-runs 0` makes it
    assert "| all |" not in none and "Eccentricity aggregation" not in none
    row = "| any | best-feasible | default |"
    assert [line for line in none.splitlines() if line.startswith(row)] == [
        line for line in full.splitlines() if line.startswith(row)]  # "any" rows unchanged
