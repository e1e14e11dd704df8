"""Initialisation: cluster sizes, rotations and initial genes (HAWKS paper III-B, S-I.A)."""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from hawks_deap._util.threads import blas_thread_limit
from hawks_deap._util.validation import check_float, check_int
from hawks_deap.genome.genotype import Cluster, Genotype, RecordFitness
from hawks_deap.genome.products import libm_elementwise, rotation_product

__all__ = [
    "cluster_sizes",
    "haar_rotation",
    "haar_from_normals",
    "rotation_power",
    "rotation_powers",
    "rotation_product",
    "random_cluster",
    "random_genotype",
]


def cluster_sizes(n_samples: int, n_clusters: int, rng: np.random.Generator, *,
                  equal: bool = False, min_size: int = 10) -> np.ndarray:
    """Cluster sizes that sum exactly to ``n_samples``.

    Parameters
    ----------
    n_samples, n_clusters : int
        N and K.
    rng : numpy.random.Generator
        Random source (unused when ``equal``).
    equal : bool
        Equal sizes: ``N // K`` each, the remainder given one by one to the first slots.
    min_size : int
        Minimum size when sizes are random.

    Returns
    -------
    numpy.ndarray of int64, shape (K,)

    Notes
    -----
    Random sizes follow the supplement, S-I.A: ``w ~ Dir(1, ..., 1)`` and
    ``|C_i| = C_min + w_i (N - K C_min)``; the real-valued sizes are rounded by the
    largest-remainder rule, so they sum exactly to N and none falls below ``C_min``.
    """
    n_samples = check_int("n_samples", n_samples, minimum=1)
    n_clusters = check_int("n_clusters", n_clusters, minimum=1)
    if equal:
        sizes = np.full(n_clusters, n_samples // n_clusters, dtype=np.int64)
        sizes[: n_samples % n_clusters] += 1
        if sizes.min() < 1:
            raise ValueError(f"n_samples={n_samples} is too small for n_clusters={n_clusters}")
        return sizes
    min_size = check_int("min_size", min_size, minimum=1)
    spare = n_samples - n_clusters * min_size
    if spare < 0:
        raise ValueError(
            f"n_samples must be >= n_clusters * min_size = {n_clusters * min_size}, "
            f"got {n_samples}"
        )
    w = rng.dirichlet(np.ones(n_clusters))
    exact = w * spare
    base = np.floor(exact).astype(np.int64)
    remainder = spare - int(base.sum())
    order = np.argsort(-(exact - base), kind="stable")
    base[order[:remainder]] += 1
    return base + min_size


def haar_rotation(n_dims: int, rng: np.random.Generator) -> np.ndarray:
    """A rotation drawn from the Haar measure on SO(D) (determinant +1).

    The algorithm of ``scipy.stats.special_ortho_group.rvs`` (Mezzadri 2007), inlined
    without its per-call overhead and with the same draws and arithmetic, so the result
    is bit-identical to ``special_ortho_group.rvs(D, random_state=rng)`` of scipy 1.16
    and later (earlier versions draw by Householder reflections, another stream; this
    draw does not depend on the scipy installed): Q R = G with
    G a standard-normal D x D matrix, Q's columns multiplied by the signs of diag(R), and
    the first row divided by det(Q) so that the determinant is +1.

    Parameters
    ----------
    n_dims : int
        D, an integer >= 1.
    rng : numpy.random.Generator
        Source of G (unused for D = 1).

    Returns
    -------
    numpy.ndarray of shape (D, D)
        A proper rotation; ``[[1.0]]`` for D = 1.
    """
    if check_int("n_dims", n_dims, minimum=1) == 1:
        return np.ones((1, 1))
    return haar_from_normals(rng.normal(size=(1, n_dims, n_dims)))[0]


def haar_from_normals(normals: np.ndarray) -> np.ndarray:
    """`haar_rotation` for a stack of standard-normal draws G, at once.

    Each rotation has the bits of `haar_rotation` on the same draws (numpy's stacked
    QR and determinant run the same LAPACK routine on each matrix; the rest is
    elementwise), for a fraction of the per-call cost when m is large.

    Parameters
    ----------
    normals : array of shape (m, D, D)
        Standard-normal draws, one D x D matrix per rotation.

    Returns
    -------
    numpy.ndarray of shape (m, D, D)
        Proper rotations.
    """
    normals = _stack_of_squares("normals", normals)
    m, d = normals.shape[0], normals.shape[-1]
    if d == 1:
        return np.ones((m, 1, 1))
    with blas_thread_limit(1):  # small matrices: threads only cost (see blas_thread_limit)
        q, r = np.linalg.qr(normals)
        diag = np.diagonal(r, axis1=-2, axis2=-1)
        q *= (diag / abs(diag))[:, np.newaxis, :]
        q[:, 0, :] /= np.linalg.det(q)[:, np.newaxis]
    return q


def _stack_of_squares(name: str, value: np.ndarray) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim != 3 or array.shape[1] != array.shape[2] or array.shape[1] == 0:
        raise ValueError(f"{name} must be a stack of square matrices, shape (m, D, D) with "
                         f"D >= 1, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite")
    return array


#: Below this rotation sine, a plane is taken as a half turn: `rotation_power` then uses
#: the Schur form, which pairs half turns explicitly.
_HALF_TURN_SINE = 1e-7


def rotation_power(rotation: np.ndarray, power: float) -> np.ndarray:
    """Raise a proper rotation to a real power, staying a proper rotation.

    R is normal, so its symmetric part ``S = (R + R^T)/2`` and skew part
    ``A = (R - R^T)/2`` commute. In each invariant plane R turns by an angle t, ``S``
    has the double eigenvalue ``cos(t)`` and ``A`` acts as ``sin(t) J`` (J a quarter
    turn of the plane). With ``S v_i = c_i v_i`` (one symmetric eigendecomposition),
    ``w_i = A v_i``, ``s_i = |w_i| = sin(t_i)`` and ``t_i = atan2(s_i, c_i)``:

        R^p = sum_i cos(p t_i) v_i v_i^T + sin(p t_i) (w_i / s_i) v_i^T,

    i.e. each plane rotation by t becomes one by ``p t``: the principal power
    ``Z T^p Z^T`` of the real Schur form. Taking the angle from ``atan2`` and the
    direction from ``w_i / s_i`` keeps the error at the problem's own conditioning
    (``~eps / sin(t)`` near half turns); one Newton-Schulz step
    ``X (3 I - X^T X) / 2`` then restores orthogonality to rounding. Exact half turns
    (``s_i`` ~ 0 with ``c_i < 0``, where the direction is undefined) go through the Schur
    form, which pairs them as rotations by ``p pi``. The result is orthogonal with
    determinant +1.

    Parameters
    ----------
    rotation : array of shape (D, D)
        A proper rotation. Only finiteness is checked (ValueError); for any other matrix
        the result is meaningless.
    power : float
        The real power p.

    Returns
    -------
    numpy.ndarray of shape (D, D)
        ``rotation ** power``, a proper rotation (`rotation_powers` of a stack of one).
    """
    return rotation_powers(np.asarray(rotation)[np.newaxis], power)[0]


def rotation_powers(rotations: np.ndarray, power: float) -> np.ndarray:
    """`rotation_power` of a stack of rotations, at once.

    Each result has the bits of `rotation_power` on that rotation (stacked
    eigendecompositions and matrix products run the same routines on each matrix).

    Parameters
    ----------
    rotations : array of shape (m, D, D)
        Proper rotations (only finiteness is checked, as in `rotation_power`).
    power : float
        The real power.

    Returns
    -------
    numpy.ndarray of shape (m, D, D)
        ``rotations[i] ** power``, proper rotations.
    """
    rotations = _stack_of_squares("rotations", rotations)
    check_float("power", power)
    m, d = rotations.shape[0], rotations.shape[-1]
    if d == 1:
        return np.ones((m, 1, 1))
    if d == 2:  # one plane: t = atan2(R_10 - R_01, R_00 + R_11), as in the Schur form
        out = np.empty((m, 2, 2))
        for i, r in enumerate(rotations):
            t = power * math.atan2(r[1, 0] - r[0, 1], r[0, 0] + r[1, 1])
            cos_t, sin_t = math.cos(t), math.sin(t)
            out[i] = ((cos_t, -sin_t), (sin_t, cos_t))
        return out
    with blas_thread_limit(1):  # small matrices: threads only cost (see blas_thread_limit)
        transposed = rotations.transpose(0, 2, 1)
        sym = (rotations + transposed) * 0.5
        skew = (rotations - transposed) * 0.5
        c, v = np.linalg.eigh(sym)
        w = skew @ v
        sine = np.sqrt(np.einsum("kij,kij->kj", w, w))
        theta = libm_elementwise(math.atan2, sine, c)  # not numpy's (genome.products)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(sine > 0.0, np.sin(power * theta) / sine, 0.0)
        out = ((v * np.cos(power * theta)[:, np.newaxis, :] + w * ratio[:, np.newaxis, :])
               @ v.transpose(0, 2, 1))
        out = out @ (1.5 * np.eye(d) - 0.5 * (out.transpose(0, 2, 1) @ out))
        for j in np.flatnonzero(np.any((sine < _HALF_TURN_SINE) & (c < 0.0), axis=1)):
            out[j] = _rotation_power_schur(rotations[j], power)
    return out


def _rotation_power_schur(rotation: np.ndarray, power: float) -> np.ndarray:
    """`rotation_power` through the real Schur form ``R = Z T Z^T``.

    T is block diagonal with 2x2 rotation blocks and +-1 entries: each plane rotation
    by angle theta becomes one by ``power * theta``; pairs of -1 entries (rotations by
    pi) become rotations by ``power * pi``. The result is ``Z T^power Z^T``.
    """
    d = rotation.shape[0]
    t, z = linalg.schur(rotation, output="real")
    tp = np.zeros_like(t)
    i = 0
    minus_ones = []
    while i < d:
        if i + 1 < d and abs(t[i + 1, i]) > 1e-12:
            theta = math.atan2(t[i + 1, i] - t[i, i + 1], t[i, i] + t[i + 1, i + 1])
            c, s = math.cos(power * theta), math.sin(power * theta)
            tp[i, i], tp[i, i + 1], tp[i + 1, i], tp[i + 1, i + 1] = c, -s, s, c
            i += 2
        else:
            if t[i, i] > 0:
                tp[i, i] = 1.0
            else:
                minus_ones.append(i)
            i += 1
    # det(R) = +1 makes the number of -1 eigenvalues even: pair them as rotations by pi.
    if len(minus_ones) % 2:
        raise ValueError("rotation must be a proper rotation (determinant +1)")
    c, s = math.cos(power * math.pi), math.sin(power * math.pi)
    for a, b in zip(minus_ones[::2], minus_ones[1::2], strict=True):
        tp[a, a], tp[a, b], tp[b, a], tp[b, b] = c, -s, s, c
    return z @ tp @ z.T


def random_cluster(n_dims: int, rng: np.random.Generator, *, initial_mean_upper: float = 2.0,
                   initial_cov_upper: float = 0.5) -> Cluster:
    """A random gene: ``mu ~ U(0, beta_mu)^D``, ``lambda ~ U(0, beta_sigma)^D``, Haar R.

    HAWKS paper III-B. Variances of exactly 0 (probability 0, but possible in floating
    point) are redrawn, since a covariance must be positive definite.

    Parameters
    ----------
    n_dims : int
        D, at least 1.
    rng : numpy.random.Generator
        Source of the draws: the mean, then the variances, then the rotation.
    initial_mean_upper : float
        ``beta_mu``, the upper bound of each mean coordinate (> 0).
    initial_cov_upper : float
        ``beta_sigma``, the upper bound of each variance (> 0).

    Returns
    -------
    Cluster
        The gene (mean, variances and rotation R).
    """
    check_int("n_dims", n_dims, minimum=1)
    check_float("initial_mean_upper", initial_mean_upper, low=0.0, low_open=True)
    check_float("initial_cov_upper", initial_cov_upper, low=0.0, low_open=True)
    mean = rng.uniform(0.0, initial_mean_upper, size=n_dims)
    variances = rng.uniform(0.0, initial_cov_upper, size=n_dims)
    while np.any(variances <= 0):
        bad = variances <= 0
        variances[bad] = rng.uniform(0.0, initial_cov_upper, size=int(bad.sum()))
    return Cluster(mean, variances, haar_rotation(n_dims, rng))


def random_genotype(n_clusters: int, n_dims: int, rng: np.random.Generator, *,
                    fitness_class: type[RecordFitness], initial_mean_upper: float = 2.0,
                    initial_cov_upper: float = 0.5) -> Genotype:
    """A random individual of K genes (see `random_cluster`).

    Parameters
    ----------
    n_clusters : int
        K, the number of genes (at least 1).
    n_dims : int
        D, the dimension of each gene (at least 1).
    rng : numpy.random.Generator
        Source of the draws, gene after gene.
    fitness_class : type
        A `RecordFitness` subclass; the individual gets a new, unevaluated instance.
    initial_mean_upper, initial_cov_upper : float
        Upper bounds of the uniform means and variances (> 0), as `random_cluster`.

    Returns
    -------
    Genotype
        The individual.
    """
    check_int("n_clusters", n_clusters, minimum=1)
    check_int("n_dims", n_dims, minimum=1)
    check_float("initial_mean_upper", initial_mean_upper, low=0.0, low_open=True)
    check_float("initial_cov_upper", initial_cov_upper, low=0.0, low_open=True)
    genes = [
        random_cluster(n_dims, rng, initial_mean_upper=initial_mean_upper,
                       initial_cov_upper=initial_cov_upper)
        for _ in range(n_clusters)
    ]
    return Genotype(genes, fitness_class())
