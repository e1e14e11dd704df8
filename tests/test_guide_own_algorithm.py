"""The "Benchmark your own algorithm" guide runs as written (issue 37).

Its files (``# my_pkg/algo.py``, ``# grid.toml``) are written, its shell commands run in
order from a fresh shell (the installed ``hawks-deap``, the working directory holding
``my_pkg``), then its Python blocks in one interpreter: a researcher's whole study,
through public names only. The guide's battery is a small one written here in
clustering-benchmarks' format, standing for ``clustering-data-v1/uci``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from hawks_deap.io import Dataset
from hawks_deap.io.batteries import write_battery

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "own_algorithm.md"
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```", GUIDE.read_text(encoding="utf-8"), re.S | re.M)
FILE_MARK = re.compile(r"#\s*(\S+\.(?:py|toml))\n")


def _commands(block: str) -> list[list[str]]:
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.split() for line in joined.splitlines() if line.strip()]


def _battery(root: Path) -> None:
    rng = np.random.default_rng(0)
    datasets = []
    for k in (2, 3, 4):
        y = np.repeat(np.arange(k), 30)
        X = rng.normal(size=(30 * k, 3)) + 4.0 * rng.normal(size=(k, 3))[y]
        datasets.append(Dataset(X, y))
    write_battery(datasets, root / "clustering-data-v1", battery="uci",
                  names=["alpha", "beta", "gamma"])


def test_the_guide_has_its_blocks():
    kinds = [kind for kind, _ in BLOCKS]
    assert kinds.count("bash") >= 1 and kinds.count("python") >= 4 and "toml" in kinds


def test_the_guide_runs_as_written(tmp_path):
    _battery(tmp_path)
    code = []
    for kind, text in BLOCKS:
        mark = FILE_MARK.match(text)
        if mark:
            path = tmp_path / mark.group(1)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        elif kind == "python":
            code.append(text)
    (tmp_path / "my_pkg" / "__init__.py").write_text("")
    script = Path(sys.executable).with_name("hawks-deap")
    for kind, text in BLOCKS:
        if kind != "bash":
            continue
        for command in _commands(text):
            assert command[0] == "hawks-deap", command
            done = subprocess.run([str(script), *command[1:]], cwd=tmp_path,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"{' '.join(command)}\n{done.stderr}"
    header = (tmp_path / "scores.csv").read_text().splitlines()[0].split(",")
    assert "ari_my_pkg.algo:MyAlgo" in header
    rows = [line.split(",")[0] for line in (tmp_path / "scores.csv").read_text().splitlines()]
    assert "c000-r00" in rows and "uci/alpha" in rows
    for name in ("instance_space.png", "instance_space_best.png", "performance.png"):
        assert (tmp_path / "figures" / name).stat().st_size > 0
    assert (tmp_path / "wins" / "partitions.csv").is_file()
    assert (tmp_path / "wins" / "versus.png").is_file()
    (tmp_path / "study.py").write_text("\n".join(code))
    done = subprocess.run([sys.executable, "study.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Holm" in done.stdout and "| my_pkg.algo:MyAlgo |" in done.stdout
    assert "uci/alpha" in done.stdout
    for out in ("mine-wins", "mine-loses"):
        assert (tmp_path / out / "logbook.csv").is_file()
    assert (tmp_path / "benchmark" / "hawks-study" / "README.txt").is_file()
    assert (tmp_path / "cd_against_mine.png").is_file() and (tmp_path / "space.png").is_file()
    private = re.findall(r"\b_[a-z]\w*|\._\w+", "\n".join(code))
    assert private == [], private
