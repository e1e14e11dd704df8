"""Every example runs with --quick."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

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
    # items 1 and 3 of issue 36: one row per returned individual, its chi-square recomputed
    # from the win counts of the Table I row above it (our counts against the paper's)
    head = full.index("| returns | same dataset as final-fittest |")
    tests = {line.split(" | ")[0][2:]: line.split(" | ")
             for line in full[head:].splitlines()[2:5]}
    assert set(tests) == {"best-feasible", "final-fittest", "final-top-ranked"}
    assert tests["final-fittest"][1].split("/")[0] == tests["final-fittest"][1].split("/")[1]
    spec = importlib.util.spec_from_file_location("fidelity_index", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for cand, cells in tests.items():
        shares = next(line for line in full.splitlines()
                      if line.startswith(f"| any | {cand} | hawks-tevc |")).split(" | ")[3:10]
        n = int(cells[1].split("/")[1])
        ours = [round(float(x) * n) for x in shares]
        paper = module.paper_counts(n)
        theirs = [paper[a] for a in (*module.ALGORITHMS, "tied")]
        assert sum(ours) == sum(theirs) == n
        table = np.array([ours, theirs])
        chi2, _, dof, _ = stats.chi2_contingency(table[:, table.sum(axis=0) > 0])
        assert cells[2] == f"{chi2:.2f} ({dof})"
    none = run("report", "--all-runs", "0")  # as `evolve --all-runs 0` makes it
    assert "| all |" not in none and "Eccentricity aggregation" not in none
    row = "| any | best-feasible | default |"
    assert [line for line in none.splitlines() if line.startswith(row)] == [
        line for line in full.splitlines() if line.startswith(row)]  # "any" rows unchanged


def test_the_papers_table_i_shares_are_counts_of_448_datasets():
    # the chi-square of issue 36 item 1 compares counts: the paper's shares must be
    # whole numbers of its 448 datasets at its printed precision ("tied" is their rest)
    script = Path(__file__).parent.parent / "benchmarks" / "fidelity_index.py"
    spec = importlib.util.spec_from_file_location("fidelity_index", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counts = module.paper_counts(448)
    assert sum(counts.values()) == 448
    for name, share in module.PAPER_TABLE_I.items():
        assert abs(counts[name] / 448 - share) <= 0.0005 + 1e-12, name


def test_bench_contention_times_a_run_alone_two_side_by_side_and_a_pool(tmp_path):
    root = Path(__file__).parent.parent
    r = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_contention.py"),
                        "--workloads", "a", "--seeds", "1", "--generations", "2", "--pool"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    row = next(line for line in r.stdout.splitlines() if line.startswith("| a | 2 |"))
    cells = [cell.strip() for cell in row.split("|")[1:-1]]
    alone, pair = float(cells[2]), float(cells[3])
    assert alone > 0 and pair > 0
    assert cells[6].endswith("x")  # the two-process ceiling
    speedup, share = float(cells[7].split("x")[0]), float(cells[8].split()[0])
    assert speedup > 0 and share > 0
    # the pool's share of the seed's ceiling is its speed-up over that ceiling
    seed_line = next(line for line in r.stderr.splitlines() if line.startswith("a seed 0:"))
    ceiling = float(seed_line.split("(ceiling ")[1].split("x")[0])
    assert share == pytest.approx(speedup / ceiling, abs=0.02)


def test_bench_pool_messages_times_empty_maps_against_a_checkout(tmp_path):
    root = Path(__file__).parent.parent
    script = str(root / "benchmarks" / "bench_pool_messages.py")
    r = subprocess.run([sys.executable, script, "--baseline", str(root), "--rounds", "1",
                        "--maps", "3", "--population", "4"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith(("| this", "| base"))]
    assert len(rows) == 2
    for row in rows:
        medians = [float(cell.split()[0]) for cell in row.split("|")[2:7]]
        assert all(m > 0 for m in medians)
    bad = subprocess.run([sys.executable, script, "--baseline", str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert bad.returncode == 2 and "no hawks_deap/ folder" in bad.stderr


def test_bench_startup_times_the_command_against_a_checkout(tmp_path):
    # this tree against itself: both sides must write the same dataset (the script checks)
    # and the table must hold both sides' medians
    root = Path(__file__).parent.parent
    r = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_startup.py"),
                        "--baseline", str(root), "--seeds", "1", "--repeats", "1"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "same datasets on both sides" in r.stdout and "| this tree (" in r.stdout
    bad = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_startup.py"),
                          "--baseline", str(tmp_path)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert bad.returncode == 2 and "no hawks_deap/ folder" in bad.stderr
