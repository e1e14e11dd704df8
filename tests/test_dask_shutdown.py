"""A dask suite stops cleanly: workers, then client, then scheduler; nothing on stderr."""

import subprocess
import sys
import textwrap

import pytest

from hawks_deap.campaign import dask_backend

GRID = """
[suite]
runs = 2
seed = 3
mode = "index"

[dataset]
n_samples = 120
n_clusters = 3

[objective]
target = [0.3, 0.6]

[ga]
generations = 2
population_size = 6
"""


def test_close_dask_stops_workers_before_the_client_and_the_scheduler():
    calls = []

    class Worker:
        def __init__(self, name):
            self.name = name

        async def close(self, timeout):
            calls.append(("worker", self.name, timeout))

    class Cluster:
        workers = {0: Worker(0), 1: Worker(1)}

        def sync(self, func, *args):
            import asyncio

            return asyncio.run(func(*args))

        def close(self, timeout):
            calls.append(("cluster", timeout))

    class Client:
        cluster = Cluster()

        def run(self, func):
            calls.append(("run", func.__name__))

        def close(self, timeout):
            calls.append(("client", timeout))

    dask_backend.close_dask(Client(), timeout=7.0)
    assert calls == [("run", "_quiet_shutdown"), ("worker", 0, 7.0), ("worker", 1, 7.0),
                     ("client", 7.0), ("cluster", 7.0)]


def test_a_client_of_a_users_scheduler_is_only_closed():
    calls = []

    class Client:
        def run(self, func):  # the user's workers are not ours to quiet
            calls.append("run")

        def close(self, timeout):
            calls.append("close")

    dask_backend.close_dask(Client())
    assert calls == ["close"]


def test_a_dask_suite_leaves_stderr_empty(tmp_path):
    """run_suite(backend="dask", workers=2): before, every run printed dask's warnings
    ("Worker process still alive after 4.0 seconds, killing") and one in three the
    heartbeat traceback, on a loaded machine; and "Port 8787 is already in use" while
    another cluster (held here by a socket) had the scheduler's default HTTP port."""
    import socket

    pytest.importorskip("distributed")
    (tmp_path / "grid.toml").write_text(GRID)
    other = socket.socket()
    try:
        other.bind(("", 8787))
        other.listen()
    except OSError:  # already held by something else: the same condition
        pass
    script = textwrap.dedent("""
        from hawks_deap.campaign import suite as hs
        if __name__ == "__main__":
            hs.run_suite(hs.load_suite("grid.toml"), "out", workers=2, backend="dask")
            print(len(hs.read_summary("out")))
    """)
    try:
        r = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300)
    finally:
        other.close()
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["4"]
    assert r.stderr == ""


def test_a_failing_courtesy_still_closes_client_and_cluster():
    calls = []

    class Cluster:
        workers: dict = {}

        def close(self, timeout):
            calls.append("cluster")

    class Client:
        cluster = Cluster()

        def run(self, func):
            raise OSError("a worker is gone")

        def close(self, timeout):
            calls.append("client")

    dask_backend.close_dask(Client())
    assert calls == ["client", "cluster"]


def test_a_ctrl_c_to_a_dask_suite_prints_one_line(tmp_path):
    """A terminal's Ctrl-C reaches every process of its group: each LocalCluster worker
    printed its KeyboardInterrupt traceback (about 70 lines); they now ignore it, and the
    suite stops them and says one line."""
    import os
    import signal
    import time

    pytest.importorskip("dask.distributed")
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID.replace("generations = 2", "generations = 5000")
                    .replace("n_samples = 120", "n_samples = 600"))
    process = subprocess.Popen(
        [sys.executable, "-m", "hawks_deap.cli", "suite", str(grid), "--out", "s",
         "--backend", "dask", "--workers", "2", "--quiet"], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        workers: list[str] = []
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = subprocess.run(["pgrep", "-P", str(process.pid), "-f", "spawn_main"],
                                     capture_output=True, text=True).stdout.split()
        assert len(workers) == 2, "the LocalCluster's workers did not start"

        def ignores_sigint() -> bool:  # (while the cluster starts: a Ctrl-C is lost)
            with open(f"/proc/{process.pid}/status") as status:
                line = next(row for row in status if row.startswith("SigIgn:"))
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))

        while ignores_sigint() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)  # running their first runs
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=90)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130
    assert err.splitlines() == ["hawks-deap suite: interrupted"], err
    for pid in workers:  # stopped with the suite
        assert subprocess.run(["ps", "-p", pid], capture_output=True).returncode != 0


def test_a_dask_worker_that_cannot_start_fails_the_suite_instead_of_hanging(tmp_path):
    """The LocalCluster starts empty and is scaled (so that Ctrl-C is ignored only while
    its worker processes are spawned, not while they import); a worker that cannot start
    must still end the suite with an error, as LocalCluster(n_workers=...) raised, not
    leave it waiting for workers that never come."""
    import os

    pytest.importorskip("dask.distributed")
    (tmp_path / "grid.toml").write_text(GRID)
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__PRELOAD": '["no_such_module_hawks"]'}
    done = subprocess.run(
        [sys.executable, "-m", "hawks_deap.cli", "suite", "grid.toml", "--out", "s",
         "--backend", "dask", "--workers", "2", "--quiet"], cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert ("hawks-deap suite: error while running: RuntimeError: a worker of the dask "
            "LocalCluster failed to start") in done.stderr.splitlines()[-1]
    assert "no_such_module_hawks" in done.stderr
