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
