"""Seeded Index-mode runs: their recorded path and values, and their exact bytes here.

The reproducibility contract (README, "Reproducibility") has two parts, and this script
checks both on 28 seeded ``evolve`` runs (every mean mutation, both silhouette metrics,
with and without an eccentricity constraint, NSGA-II, and the sizes that send the
evaluator down each of its paths: KD-trees in 2-D, matrix products in 20-D, per-gene
centroid blocks above 2-D (``cached-d16``) and slot-by-slot reduction of large N K, the
two-dimensional shape certificates, a whole-dataset overlap pass):

- **Everywhere: the same path, values to a tolerance.** A case's *trace* is its
  evolutionary path, compared exactly (which genes make up the population after each
  generation, as first-appearance numbers of the gene objects; the logbook's
  ``nevals`` and ``n_feasible``; the best dataset's labels), and its values, compared
  by the contract's rule (`hawks_deap.campaign.provenance.tolerance_used`: within
  ``ATOL`` plus ``RTOL`` times the largest magnitude of each kind of value) (the population's
  fitness after each generation, the logbook's fitness and record columns, the final
  population's fitness, the best genotype's genes, the best dataset's points: all of
  them when N D <= 1000, otherwise 64 evenly spaced rows, per-cluster centroids and
  scatters). Traces are stored in ``tests/data/seeded_reference.npz``; the default test
  suite compares them (``tests/test_seeded_reference.py``), under any BLAS kernel.
- **Same environment: the same bytes.** A case's *fingerprint* is the SHA-256 of the
  best dataset (X, y) and of the final population (every gene's arrays and fitness
  values). Fingerprints hold only where they were recorded, so they are stored per
  environment key (`environment_key`: Python, numpy, scipy, scikit-learn and DEAP
  versions, numpy's active CPU dispatch targets, and each BLAS library's version and
  kernel as threadpoolctl reports it) in ``tests/data/seeded_hashes.json``. Record them
  before a change that must not change any result, check them after:

    python benchmarks/seeded_reference.py --record-hashes tests/data/seeded_hashes.json
    ... change the code ...
    python benchmarks/seeded_reference.py --check-hashes tests/data/seeded_hashes.json

  A change that does change results (and so the traces) rewrites the traces:

    python benchmarks/seeded_reference.py --write tests/data/seeded_reference.npz
    python benchmarks/seeded_reference.py --compare tests/data/seeded_reference.npz

  ``--compare`` prints, per case, whether the path is the same and the largest
  absolute and relative differences of the values. ``--slow`` adds the three slow
  cases to ``--compare``, ``--record-hashes`` and ``--check-hashes`` (``--write``
  always writes all). Run it with ``OPENBLAS_CORETYPE=Sandybridge`` (or another kernel
  the CPU supports) to see what the BLAS changes.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

# the tolerance of the contract across machines, and its rule: the package's, one source
from hawks_deap.campaign.provenance import ATOL, RTOL, tolerance_used

MEAN_MUTATIONS = ("gaussian", "rails", "pso", "pso-informed", "de")


#: Datasets with at most this many values (N D) are stored whole in a trace.
FULL_X = 1000
#: Otherwise, this many evenly spaced rows (and per-cluster centroids and scatters).
X_ROWS = 64


def _cases() -> dict[str, dict[str, Any]]:
    base = dict(n_samples=400, n_clusters=4, n_dims=2, target=0.5)
    cases: dict[str, dict[str, Any]] = {}
    for mean in MEAN_MUTATIONS:
        for metric in ("sqeuclidean", "euclidean"):
            for ecc in (False, True):
                name = f"{mean}-{metric}-{'ecc' if ecc else 'plain'}"
                cases[name] = dict(cfg=base, metric=metric, ecc=ecc, mean=mean,
                                   generations=12, slow=False)
    cases["nsga2"] = dict(cfg=base, metric="sqeuclidean", ecc=True, mean="pso",
                          generations=12, algorithm="nsga2", slow=False)
    # evaluator paths: matrix products (D > 8), mid dimension, many small clusters
    cases["dense-d20"] = dict(cfg=dict(n_samples=600, n_clusters=6, n_dims=20, target=0.9),
                              metric="sqeuclidean", ecc=False, mean="pso", generations=10,
                              slow=False)
    cases["dense-d20-euclidean"] = dict(
        cfg=dict(n_samples=600, n_clusters=6, n_dims=20, target=0.9), metric="euclidean",
        ecc=True, mean="rails", generations=10, slow=False)
    cases["mid-d6"] = dict(cfg=dict(n_samples=800, n_clusters=8, n_dims=6, target=0.3),
                           metric="sqeuclidean", ecc=False, mean="de", generations=10,
                           slow=False)
    # configs a and b of bench_index
    cases["config-a"] = dict(cfg=dict(n_samples=2000, n_clusters=5, n_dims=2, target=0.5),
                             metric="sqeuclidean", ecc=False, mean="pso", generations=30,
                             slow=True)
    cases["config-b"] = dict(cfg=dict(n_samples=1000, n_clusters=10, n_dims=20, target=0.9),
                             metric="sqeuclidean", ecc=False, mean="pso", generations=30,
                             slow=True)
    # N K D > 2^18 above two dimensions: the silhouette from per-gene centroid blocks
    cases["cached-d16"] = dict(cfg=dict(n_samples=1500, n_clusters=12, n_dims=16,
                                        target=0.3),
                               metric="sqeuclidean", ecc=False, mean="pso", generations=10,
                               slow=False)
    # N K > 2^18: the silhouette is reduced slot by slot
    cases["slotwise"] = dict(cfg=dict(n_samples=30_000, n_clusters=10, n_dims=2,
                                      target=0.5),
                             metric="sqeuclidean", ecc=False, mean="pso", generations=4,
                             slow=True)
    return cases


CASES = _cases()

#: Trace entries compared exactly (the path); all others are values (tolerance).
PATH_KEYS = ("population_genes", "nevals", "n_feasible", "y")


# -- the environment -----------------------------------------------------------------
def environment() -> dict[str, Any]:
    """What the bytes of a run depend on besides the code: versions and native kernels."""
    from importlib import metadata

    import scipy.linalg  # noqa: F401 - load scipy's BLAS before listing the libraries
    from threadpoolctl import threadpool_info

    from hawks_deap.io.environment import numpy_dispatch

    versions = {}
    for dist in ("numpy", "scipy", "scikit-learn", "deap"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    # numpy's own SIMD kernels (e.g. its AVX-512 exp) are picked per CPU too
    dispatch = numpy_dispatch()
    blas = sorted(f"{info.get('prefix')} {info.get('version')} {info.get('architecture')}"
                  for info in threadpool_info() if info.get("user_api") == "blas")
    return {"python": platform.python_version(), "machine": platform.machine(),
            "libraries": versions, "numpy_dispatch": dispatch, "blas": blas}


def environment_key(env: dict[str, Any] | None = None) -> str:
    """A short readable key of `environment`, e.g. ``numpy 2.4.6, scipy 1.17.1, ...``."""
    env = environment() if env is None else env
    libs = ", ".join(f"{k} {v}" for k, v in env["libraries"].items())
    top = env["numpy_dispatch"][-1] if env["numpy_dispatch"] else "baseline"
    blas = "; ".join(env["blas"])
    return (f"python {env['python']} {env['machine']}, {libs}, numpy SIMD up to {top}; "
            f"BLAS {blas}")


# -- BLAS kernels --------------------------------------------------------------------
#: CPU flags (``/proc/cpuinfo``) each OpenBLAS kernel needs: forcing a kernel the CPU
#: cannot run (``OPENBLAS_CORETYPE=SkylakeX`` without AVX-512) kills the process with
#: an illegal instruction.
KERNEL_FLAGS: dict[str, tuple[str, ...]] = {
    "SapphireRapids": ("avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_fp16"),
    "Cooperlake": ("avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_bf16"),
    "SkylakeX": ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"),
    "Zen": ("avx2", "fma"),
    "Haswell": ("avx2", "fma"),
    "Sandybridge": ("avx",),
    "Nehalem": ("ssse3", "sse4_1", "sse4_2"),
    "Prescott": ("pni",),  # SSE3 (threadpoolctl names its kernels "Katmai")
}


def cpu_flags() -> set[str] | None:
    """The x86 CPU flags of this machine (Linux), or None where unknown."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def kernel_support(kernel: str) -> str | None:
    """None if this CPU can run the OpenBLAS kernel, else why not (one line)."""
    flags = cpu_flags()
    if flags is None:
        return f"no x86 CPU flags known here ({platform.machine()})"
    if kernel not in KERNEL_FLAGS:
        return f"unknown kernel (known: {', '.join(KERNEL_FLAGS)})"
    missing = [f for f in KERNEL_FLAGS[kernel] if f not in flags]
    return f"this CPU lacks {' '.join(missing)}" if missing else None


# -- one run -------------------------------------------------------------------------
class _PathRecorder:
    """A callback numbering gene objects by first appearance in the population.

    Genes are immutable and shared by clones, and which gene objects exist depends only
    on the random draws and the selections, never on the last bits of a value: the
    numbers are the same on every machine that takes the same path.
    """

    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}
        self.alive: list[Any] = []  # keeps the genes, so that no id is reused
        self.genes: list[list[list[int]]] = []
        self.fitness: list[list[tuple[float, ...]]] = []

    def __call__(self, state: Any) -> None:
        rows = []
        for ind in state.population:
            row = []
            for gene in ind:
                if id(gene) not in self.numbers:
                    self.numbers[id(gene)] = len(self.numbers)
                    self.alive.append(gene)
                row.append(self.numbers[id(gene)])
            rows.append(row)
        self.genes.append(rows)
        self.fitness.append([tuple(ind.fitness.values) for ind in state.population])


def run_case(name: str, seed: int = 0) -> tuple[Any, _PathRecorder]:
    """Run one case; its `hawks_deap.Result` and the recorded path."""
    import hawks_deap as hd

    spec = CASES[name]
    constraints: list = [hd.Overlap(max=0.1)]
    if spec["ecc"]:
        constraints.append(hd.Eccentricity(min=1.0))
    problem = hd.IndexProblem(**spec["cfg"], metric=spec["metric"], constraints=constraints)
    recorder = _PathRecorder()
    result = hd.evolve(problem, population_size=10, generations=spec["generations"],
                       mean_mutation=spec["mean"], seed=seed,
                       algorithm=spec.get("algorithm", "hawks"), callbacks=[recorder])
    return result, recorder


def fingerprint_of(result: Any) -> dict[str, str]:
    """Hex digests of the best dataset (X, y) and of the final population."""
    data = result.best_dataset()
    h_data = hashlib.sha256(data.X.tobytes() + data.y.tobytes())
    h_pop = hashlib.sha256()
    for ind in result.population:
        for gene in ind:
            for array in (gene.mean, gene.variances, gene.rotation):
                h_pop.update(array.tobytes())
        h_pop.update(repr(tuple(float(v) for v in ind.fitness.values)).encode())
    return {"dataset": h_data.hexdigest(), "population": h_pop.hexdigest()}


def trace_of(result: Any, recorder: _PathRecorder) -> dict[str, np.ndarray]:
    """The path (exact) and the values (to a tolerance) of a run, as named arrays."""
    data = result.best_dataset()
    X, y = np.asarray(data.X, dtype=float), np.asarray(data.y)
    book = result.logbook
    columns = sorted({k for row in book for k in row} - {"gen", "nevals", "n_feasible"})
    out: dict[str, np.ndarray] = {
        "population_genes": np.asarray(recorder.genes, dtype=np.int64),
        "population_fitness": np.asarray(recorder.fitness, dtype=float),
        "nevals": np.asarray([row["nevals"] for row in book], dtype=np.int64),
        "n_feasible": np.asarray([row["n_feasible"] for row in book], dtype=np.int64),
        "final_fitness": np.asarray([ind.fitness.values for ind in result.population]),
        "best_means": np.stack([g.mean for g in result.best]),
        "best_variances": np.stack([g.variances for g in result.best]),
        "best_rotations": np.stack([g.rotation for g in result.best]),
        "y": y.astype(np.int64),
    }
    for col in columns:
        out[f"log_{col}"] = np.asarray([float(row.get(col, np.nan)) for row in book])
    if X.size <= FULL_X:
        out["X"] = X
    else:
        rows = np.linspace(0, len(X) - 1, X_ROWS).round().astype(int)
        labels = np.unique(y)
        centroids = np.stack([X[y == k].mean(axis=0) for k in labels])
        out["X_rows"] = X[rows]
        out["X_centroids"] = centroids
        out["X_scatter"] = np.asarray([((X[y == k] - c) ** 2).sum()
                                       for k, c in zip(labels, centroids, strict=True)])
    return out


def run(name: str, seed: int = 0) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """One case's trace and fingerprint, from one run."""
    result, recorder = run_case(name, seed)
    return trace_of(result, recorder), fingerprint_of(result)


def fingerprint(name: str, seed: int = 0) -> dict[str, str]:
    """The fingerprint of one case (hex digests of the best dataset and the population)."""
    return run(name, seed)[1]


# -- comparisons ---------------------------------------------------------------------
def differences(expected: dict[str, np.ndarray], got: dict[str, np.ndarray]
                ) -> tuple[list[str], float, float, float]:
    """Path differences (messages), the largest absolute and relative value gaps, and
    the largest share of the tolerance used (`tolerance_used`)."""
    problems = []
    if sorted(expected) != sorted(got):
        problems.append(f"entries differ: {sorted(set(expected) ^ set(got))}")
    worst_abs = worst_rel = used = 0.0
    for key in sorted(set(expected) & set(got)):
        a, b = np.asarray(expected[key]), np.asarray(got[key])
        if a.shape != b.shape:
            problems.append(f"{key}: shape {a.shape} != {b.shape}")
        elif key in PATH_KEYS:
            if not np.array_equal(a, b):
                where = np.argwhere(a != b)[0].tolist()
                problems.append(f"{key}: differs first at {where}")
        elif not np.array_equal(np.isnan(a), np.isnan(b)):
            problems.append(f"{key}: NaN in different places")
        else:
            ok = ~np.isnan(a)
            gap = np.abs(a[ok] - b[ok])
            if gap.size:
                worst_abs = max(worst_abs, float(gap.max()))
                scale = np.abs(a[ok])
                rel = gap[scale > 0] / scale[scale > 0]
                worst_rel = max(worst_rel, float(rel.max()) if rel.size else 0.0)
                used = max(used, tolerance_used(a, b))
    return problems, worst_abs, worst_rel, used


def assert_same_trace(expected: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> None:
    """Assert the same path exactly and the same values within the tolerance."""
    assert sorted(expected) == sorted(got), (sorted(expected), sorted(got))
    for key in PATH_KEYS:
        np.testing.assert_array_equal(got[key], expected[key], err_msg=f"path: {key}")
    for key in sorted(set(expected) - set(PATH_KEYS)):
        used = tolerance_used(expected[key], got[key])
        assert used <= 1.0, f"values: {key} use {used:.3g} times the tolerance"


def save_traces(path: str | Path, traces: dict[str, dict[str, np.ndarray]]) -> None:
    """Write traces to one compressed npz (entries ``case/key``)."""
    flat = {f"{name}/{key}": value for name, trace in traces.items()
            for key, value in trace.items()}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **flat)
    Path(path).write_bytes(buffer.getvalue())


def load_traces(path: str | Path) -> dict[str, dict[str, np.ndarray]]:
    """Read traces written by `save_traces`."""
    out: dict[str, dict[str, np.ndarray]] = {}
    with np.load(path) as npz:
        for flat in npz.files:
            name, key = flat.split("/", 1)
            out.setdefault(name, {})[key] = npz[flat]
    return out


# -- command line --------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="NPZ", help="write every case's trace")
    group.add_argument("--compare", metavar="NPZ", help="compare traces with these")
    group.add_argument("--record-hashes", metavar="JSON",
                       help="record this environment's fingerprints (other keys kept)")
    group.add_argument("--check-hashes", metavar="JSON",
                       help="check the fingerprints recorded for this environment")
    group.add_argument("--dump", metavar="DIR", help="write the cases' traces.npz and "
                       "fingerprints.json (and environment.json) into DIR")
    group.add_argument("--environment", action="store_true",
                       help="print this environment's key and exit")
    group.add_argument("--supported-kernels", nargs="+", metavar="KERNEL",
                       help="print those of these OpenBLAS kernels the CPU can run, one a "
                       "line (a line on stderr for each one it cannot)")
    parser.add_argument("--slow", action="store_true", help="include the slow cases")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), help="only these")
    args = parser.parse_args()
    if args.supported_kernels:
        for kernel in args.supported_kernels:
            why = kernel_support(kernel)
            if why is None:
                print(kernel)
            else:
                print(f"skipping OPENBLAS_CORETYPE={kernel}: {why}", file=sys.stderr)
        return 0
    names = args.cases or [n for n, spec in CASES.items()
                           if args.slow or args.write or not spec["slow"]]
    key = environment_key()
    print(f"environment: {key}")
    if args.environment:
        return 0
    if args.dump:
        out = Path(args.dump)
        out.mkdir(parents=True, exist_ok=True)
        runs = {name: run(name) for name in names}
        save_traces(out / "traces.npz", {name: r[0] for name, r in runs.items()})
        (out / "fingerprints.json").write_text(
            json.dumps({name: r[1] for name, r in runs.items()}, indent=1) + "\n")
        (out / "environment.json").write_text(
            json.dumps({"key": key, **environment()}, indent=1) + "\n")
        print(f"wrote {len(runs)} traces and fingerprints to {out}")
        return 0
    if args.write:
        traces = {}
        for name in names:
            start = time.perf_counter()
            traces[name] = run(name)[0]
            print(f"{name:32s} {time.perf_counter() - start:6.2f} s")
        save_traces(args.write, traces)
        print(f"wrote {len(traces)} traces to {args.write}")
        return 0
    if args.compare:
        expected = load_traces(args.compare)
        bad = 0
        print(f"{'case':32s} {'path':9s} {'max abs':>9s} {'max rel':>9s} {'used':>9s}  "
              f"(tolerance: atol {ATOL:g} + rtol {RTOL:g} of each kind's largest magnitude; "
              "used: the largest share of it, provenance.tolerance_used)")
        overall = [0.0, 0.0, 0.0]
        for name in names:
            got = run(name)[0]
            problems, gap, rel, used = differences(expected[name], got)
            if not problems:
                try:
                    assert_same_trace(expected[name], got)
                except AssertionError as exc:
                    problems.append("values beyond the tolerance: "
                                    + str(exc).strip().splitlines()[0])
            bad += bool(problems)
            overall = [max(overall[0], gap), max(overall[1], rel), max(overall[2], used)]
            status = "same path" if not problems or "values" in problems[0] else "DIFFERENT"
            print(f"{name:32s} {status:9s} {gap:9.2e} {rel:9.2e} {used:9.2e}"
                  + ("  " + "; ".join(problems) if problems else ""))
        print(f"{'largest':32s} {'':9s} {overall[0]:9.2e} {overall[1]:9.2e} "
              f"{overall[2]:9.2e}")
        return 1 if bad else 0
    path = Path(args.record_hashes or args.check_hashes)
    recorded = json.loads(path.read_text()) if path.exists() else {}
    got = {name: fingerprint(name) for name in names}
    if args.record_hashes:
        recorded.setdefault(key, {}).update(got)
        path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(got)} fingerprints under this environment in {path}")
        return 0
    if key not in recorded:
        print(f"no fingerprints recorded for this environment in {path}: record them "
              "with --record-hashes before the change (keys there: "
              f"{len(recorded)})")
        return 2
    bad = 0
    for name in names:
        if name not in recorded[key]:
            print(f"{name:32s} not recorded")
            bad += 1
            continue
        same = got[name] == recorded[key][name]
        bad += not same
        print(f"{name:32s} {'same' if same else 'DIFFERENT'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
