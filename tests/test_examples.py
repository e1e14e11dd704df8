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
