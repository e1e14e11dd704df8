"""Which steps of a run depend on the BLAS kernel, and what a BLAS-free step would cost.

Part 1 (dependence): each step of a run is computed on fixed seeded inputs in a
subprocess per OpenBLAS kernel (``OPENBLAS_CORETYPE``; kernels the CPU cannot run are
skipped); a step whose output bytes differ between kernels depends on the BLAS.

Part 2 (cost): the one step in every evaluation's path, the points of a gene
``mean + z diag(sqrt(v)) R^T``, timed as numpy computes it now (a BLAS matrix product)
against two BLAS-free ways (``numpy.einsum``, whose C loops do not call the BLAS, and a
fixed-order sum of D scaled columns), with their bytes compared across kernels.

Part 3 (whole runs): seeded runs of ``benchmarks/seeded_reference.py`` under each kernel
with ``hawks_deap.genome.products.BLAS_FREE_MAX_DIMS`` at 0 (every gene product by ``@``, as
before issue 31), 2 (the package: einsum for the points, centroid offsets and the
covariance mutation's ``Q^p R`` in one and two dimensions) and unbounded (einsum
everywhere): whether their bytes agree across kernels, and their CPU time.

    python benchmarks/bench_blas_steps.py [--kernels Haswell Sandybridge Nehalem]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _points_matmul(mean, z, v, r):
    return mean + (z * np.sqrt(v)) @ r.T


def _points_einsum(mean, z, v, r):
    return mean + np.einsum("nj,ij->ni", z * np.sqrt(v), r)


def _points_columns(mean, z, v, r):
    scaled = z * np.sqrt(v)
    out = np.broadcast_to(mean, scaled.shape).copy()
    for j in range(r.shape[1]):  # fixed order: one scaled column after another
        out += scaled[:, j:j + 1] * r[:, j]
    return out


POINTS = {"matmul": _points_matmul, "einsum": _points_einsum, "columns": _points_columns}


def _steps() -> dict[str, np.ndarray]:
    """Every step's output on fixed inputs (this process's kernel)."""
    import hawks_deap as hd
    from hawks_deap.evaluation import overlap_flags, silhouette_score
    from hawks_deap.genome.initialization import haar_from_normals, rotation_powers

    rng = np.random.default_rng(12345)
    out: dict[str, np.ndarray] = {}
    for d in (2, 6, 20):
        normals = rng.standard_normal((8, d, d))
        q = haar_from_normals(normals)
        out[f"Haar rotation (QR, det), D={d}"] = q
        q_in = np.round(q, 6)  # inputs of the steps below, the same under every kernel
        if d > 2:
            out[f"rotation power (eigh, products), D={d}"] = rotation_powers(q_in, 0.3)
        z = rng.standard_normal((500, d))
        mean, v = rng.normal(0, 5, d), rng.uniform(0.5, 3, d)
        for how, fn in POINTS.items():
            out[f"points by {how}, D={d}"] = fn(mean, z, v, q_in[0])
        X = np.concatenate([fn(rng.normal(0, 3, d), rng.standard_normal((150, d)),
                               rng.uniform(0.5, 3, d), q_in[i]) for i, fn in
                            enumerate([_points_columns] * 4)])
        y = np.repeat(np.arange(4), 150)
        out[f"silhouette sqeuclidean (reference), D={d}"] = np.array(
            silhouette_score(X, y, metric="sqeuclidean"))
        out[f"silhouette euclidean (reference), D={d}"] = np.array(
            silhouette_score(X, y, metric="euclidean"))
        out[f"overlap flags (reference), D={d}"] = overlap_flags(X, y)
    # the whole loop: a short seeded run, its best dataset and its logbook
    for d, metric in ((2, "sqeuclidean"), (2, "euclidean"), (20, "sqeuclidean")):
        problem = hd.IndexProblem(n_samples=400, n_clusters=4, n_dims=d, target=0.5,
                                  metric=metric, constraints=[hd.Overlap(max=0.1)])
        result = hd.evolve(problem, population_size=10, generations=5, seed=0,
                           mean_mutation="pso")
        out[f"evolve 5 generations: best X, D={d} {metric}"] = result.best_dataset().X
        out[f"evolve 5 generations: fitness, D={d} {metric}"] = np.array(
            [ind.fitness.values for ind in result.population])
    return out


RUN_CASES = ("gaussian-sqeuclidean-ecc", "pso-euclidean-ecc", "de-euclidean-plain", "nsga2",
             "config-a", "mid-d6", "dense-d20", "config-b")


def _seeded_reference():
    import importlib.util

    spec = importlib.util.spec_from_file_location("seeded_reference",
                                                  ROOT / "benchmarks" / "seeded_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: The settings of ``hawks_deap.genome.products.BLAS_FREE_MAX_DIMS`` compared in part 3.
MODES = {"matmul (0)": 0, "package (2)": 2, "einsum (all)": 1_000_000}


def _set_mode(max_dims: int) -> None:
    from hawks_deap.genome import products as _products

    _products.BLAS_FREE_MAX_DIMS = max_dims


def _dump_runs(path: str, max_dims: int) -> None:
    sr = _seeded_reference()
    _set_mode(max_dims)
    Path(path).write_text(json.dumps({name: sr.run(name)[1] for name in RUN_CASES}))


def _runs(kernels: list[str], workdir: Path) -> None:
    """Whole seeded runs: their bytes across kernels and their CPU time, with the genes'
    products computed by matrix products, as the package does (einsum up to D=2), or by
    einsum in every dimension."""
    found: dict[str, dict[str, dict]] = {mode: {} for mode in MODES}
    for kernel in kernels:
        if _kernel_support(kernel) is not None:
            continue
        for mode, max_dims in MODES.items():
            path = workdir / f"runs-{kernel}-{max_dims}.json"
            env = {**os.environ, "OPENBLAS_CORETYPE": kernel,
                   "PYTHONPATH": os.pathsep.join(filter(None, [
                       str(ROOT), os.environ.get("PYTHONPATH")]))}
            subprocess.run([sys.executable, __file__, "--dump-runs", str(path),
                            "--max-dims", str(max_dims)], check=True, env=env)
            found[mode][kernel] = json.loads(path.read_text())
    sr = _seeded_reference()
    times: dict[str, dict[str, list[float]]] = {mode: {} for mode in MODES}
    for _ in range(5):  # alternate, to share the machine's load fairly
        for mode, max_dims in MODES.items():
            _set_mode(max_dims)
            for name in RUN_CASES:
                t = time.process_time()
                sr.run(name)
                times[mode].setdefault(name, []).append(time.process_time() - t)
    _set_mode(MODES["package (2)"])
    print(f"\nwhole seeded runs: the same bytes under {', '.join(found['matmul (0)'])}? "
          "CPU seconds (median of 5) by BLAS_FREE_MAX_DIMS")
    print(f"{'case':28s} " + " ".join(f"{m:>13s}" for m in MODES) + "   "
          + " ".join(f"{m:>13s}" for m in MODES))
    for name in RUN_CASES:
        same = [len({json.dumps(f[name]) for f in found[m].values()}) == 1 for m in MODES]
        medians = [float(np.median(times[m][name])) for m in MODES]
        print(f"{name:28s} " + " ".join(f"{'yes' if x else 'NO':>13s}" for x in same) + "   "
              + " ".join(f"{t:6.2f} ({t / medians[0]:4.2f})" for t in medians))


def _dump(path: str) -> None:
    steps = _steps()
    np.savez(path, **{f"s{i}": v for i, v in enumerate(steps.values())})
    Path(path + ".json").write_text(json.dumps(list(steps)))


def _kernel_support(kernel: str) -> str | None:
    return _seeded_reference().kernel_support(kernel)


def _dependence(kernels: list[str], workdir: Path) -> None:
    results = {}
    for kernel in kernels:
        why = _kernel_support(kernel)
        if why is not None:
            print(f"skipping OPENBLAS_CORETYPE={kernel}: {why}")
            continue
        path = str(workdir / f"{kernel}.npz")
        env = {**os.environ, "OPENBLAS_CORETYPE": kernel,
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                           os.environ.get("PYTHONPATH")]))}
        subprocess.run([sys.executable, __file__, "--dump", path], check=True, env=env)
        names = json.loads(Path(path + ".json").read_text())
        with np.load(path) as npz:
            results[kernel] = {n: npz[f"s{i}"] for i, n in enumerate(names)}
    if len(results) < 2:
        print("fewer than two kernels: nothing to compare")
        return
    first, *others = results
    print(f"\n{'step':52s} {'same bytes':>10s} {'max |diff|':>11s}   (kernels: "
          f"{', '.join(results)})")
    for name, ref in results[first].items():
        same, gap = True, 0.0
        for other in others:
            got = results[other][name]
            same &= hashlib.sha256(ref.tobytes()).digest() == hashlib.sha256(
                got.tobytes()).digest()
            if ref.shape == got.shape and ref.dtype.kind == "f":
                gap = max(gap, float(np.max(np.abs(ref - got))) if ref.size else 0.0)
            elif not np.array_equal(ref, got):
                gap = float("inf")
        print(f"{name:52s} {'yes' if same else 'NO':>10s} {gap:11.2e}")


def _cost(repeats: int = 200) -> None:
    rng = np.random.default_rng(0)
    print(f"\npoints mean + z diag(sqrt v) R^T, median of {repeats} calls (microseconds); "
          "ratio to matmul")
    print(f"{'n':>6s} {'D':>3s} " + " ".join(f"{h:>16s}" for h in POINTS))
    for n in (100, 400, 3000):
        for d in (2, 6, 20):
            z, mean, v = rng.standard_normal((n, d)), rng.normal(size=d), rng.uniform(1, 2, d)
            r = np.linalg.qr(rng.standard_normal((d, d)))[0]
            times = {}
            for how, fn in POINTS.items():
                samples = []
                for _ in range(repeats):
                    t = time.perf_counter()
                    fn(mean, z, v, r)
                    samples.append(time.perf_counter() - t)
                times[how] = float(np.median(samples)) * 1e6
            base = times["matmul"]
            print(f"{n:6d} {d:3d} " + " ".join(
                f"{t:8.1f} ({t / base:4.2f}x)" for t in times.values()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", nargs="+",
                        default=["Haswell", "Sandybridge", "Nehalem", "SkylakeX"])
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    parser.add_argument("--dump-runs", help=argparse.SUPPRESS)
    parser.add_argument("--max-dims", type=int, default=2, help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    if args.dump:
        _dump(args.dump)
        return 0
    if args.dump_runs:
        _dump_runs(args.dump_runs, args.max_dims)
        return 0
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        _dependence(args.kernels, Path(tmp))
        _cost(args.repeats)
        _runs(args.kernels, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
