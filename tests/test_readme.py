"""Every code block of README.md runs as shown (issue 33): the Python blocks in a fresh
interpreter each, the command-line blocks in order in one folder (later commands read
what earlier ones wrote). The set-up commands (a virtual environment, ``pip install``,
the test command itself, the documentation build) are what ``.ci/run`` runs, so they
are left out here."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```", (ROOT / "README.md").read_text(), re.S | re.M)
SET_UP = ("python3 -m venv", ".venv/bin/pip install")


def commands(block: str) -> list[str]:
    """A shell block's commands, continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_the_readme_has_its_blocks():
    kinds = [kind for kind, _ in BLOCKS]
    assert kinds.count("python") >= 2 and kinds.count("bash") >= 3
    set_up = [c for kind, text in BLOCKS if kind == "bash" for c in commands(text)
              if c.startswith(SET_UP)]
    assert set_up[:2] == [  # the two set-up commands .ci/run and a new user copy
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/hawks-deap generate "
        "--seed 0 --out out/example",
        'python3 -m venv .venv && .venv/bin/pip install -e ".[dev]" && .venv/bin/python -m '
        "pytest -q"]
    assert sum(1 for line in (ROOT / "README.md").read_text().splitlines()) <= 170


@pytest.mark.parametrize("index", [i for i, (kind, _) in enumerate(BLOCKS) if kind == "python"])
def test_a_python_block_runs(index, tmp_path):
    done = subprocess.run([sys.executable, "-c", BLOCKS[index][1]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_the_command_line_blocks_run_in_order(tmp_path):
    hawks_deap = Path(sys.executable).parent / "hawks-deap"
    ran = 0
    for kind, text in BLOCKS:
        if kind != "bash":
            continue
        for command in commands(text):
            if command.startswith(SET_UP):
                continue
            assert command.startswith("hawks-deap "), command
            args = command.split()[1:]
            done = subprocess.run([str(hawks_deap), *args], cwd=tmp_path,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"{command}\n{done.stderr}"
            ran += 1
    assert ran >= 4
