import json
import subprocess
import sys

import numpy as np

import hawks_deap as hd


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "hawks_deap.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def test_generate_writes_dataset_and_logbook(tmp_path):
    out = tmp_path / "run"
    r = run_cli("generate", "--n-samples", "200", "--n-clusters", "3", "--generations", "4",
                "--seed", "1", "--out", str(out))
    assert r.returncode == 0, r.stderr
    ds = hd.Dataset.load(out)
    assert ds.X.shape == (200, 2) and len(np.unique(ds.y)) == 3
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["seed"] == 1
    log = (out / "logbook.csv").read_text().splitlines()
    assert log[0].startswith("gen,nevals") and len(log) == 6


def test_generate_bad_input_exit_2_and_nothing_written(tmp_path):
    out = tmp_path / "bad"
    r = run_cli("generate", "--target", "3", "--out", str(out))
    assert r.returncode == 2 and "target" in r.stderr
    assert not out.exists()
    r = run_cli("generate", "--mean-mutation", "levy", "--out", str(out))
    assert r.returncode == 2 and "mean-mutation" in r.stderr
    assert not out.exists()
