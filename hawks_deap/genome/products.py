"""The arithmetic of genes that would otherwise differ from CPU to CPU.

A BLAS rounds a matrix product differently under each of its CPU kernels (OpenBLAS
picks SkylakeX, Haswell, Zen or Sandybridge kernels by processor), so points computed
by ``@`` differ in their last bits from machine to machine. ``numpy.einsum`` (without
``optimize``) computes in its own loops, the same bits whatever the BLAS kernel. In one
and two dimensions it costs nothing measurable over a whole run, and with it 2-D runs
were byte-identical under Haswell, Sandybridge, Nehalem and Prescott (under SkylakeX the
2x2 QR of the Haar draws, the one LAPACK call left, differs in its last bit); from three
dimensions on, the covariance mutation's QR and eigendecomposition depend on the BLAS
anyway, and ``@`` is two to three times faster.

numpy also picks some of its own kernels by CPU: its AVX-512 ``exp`` and ``arctan2``
round the last bit otherwise than the C library, which numpy calls below AVX-512. The
operators therefore take the C library's (`libm_elementwise`), the same bits on AVX2 and
AVX-512 machines (``benchmarks/bench_blas_steps.py``, BENCHMARKS.md "Reproducibility
across BLAS kernels").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["BLAS_FREE_MAX_DIMS", "libm_elementwise", "rotation_product", "shape_points"]


def libm_elementwise(func: Callable[..., float], *arrays: np.ndarray) -> np.ndarray:
    """A function of `math` (the C library's) applied element by element.

    Parameters
    ----------
    func : callable
        E.g. ``math.exp`` (one array) or ``math.atan2`` (two).
    *arrays : numpy.ndarray
        Its arguments, arrays of one shape.

    Returns
    -------
    numpy.ndarray of that shape, float64

    Raises
    ------
    ValueError
        If the arrays' shapes differ.
    """
    shapes = {np.shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"arrays must have one shape, got shapes {sorted(shapes)}")
    columns = [np.asarray(a, dtype=float).ravel().tolist() for a in arrays]
    values = [func(*args) for args in zip(*columns, strict=True)]
    return np.array(values, dtype=float).reshape(shapes.pop())

#: Up to this dimension the products below are computed by ``numpy.einsum``.
BLAS_FREE_MAX_DIMS = 2


def shape_points(z: np.ndarray, variances: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """``z diag(sqrt(variances)) R^T``: a gene's points around its mean.

    Parameters
    ----------
    z : numpy.ndarray of shape (n, D) or (D,)
        Standard-normal draws (rows), or their mean.
    variances : numpy.ndarray of shape (D,)
    rotation : numpy.ndarray of shape (D, D)

    Returns
    -------
    numpy.ndarray of the shape of ``z``
    """
    scaled = z * np.sqrt(variances)
    if rotation.shape[0] <= BLAS_FREE_MAX_DIMS:
        return np.einsum("...j,ij->...i", scaled, rotation)
    return scaled @ rotation.T


def rotation_product(q: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """``Q R``, the rotation of a covariance mutation.

    Parameters
    ----------
    q, rotation : numpy.ndarray of shape (D, D)

    Returns
    -------
    numpy.ndarray of shape (D, D)
    """
    if rotation.shape[0] <= BLAS_FREE_MAX_DIMS:
        return np.einsum("ij,jk->ik", q, rotation)
    return q @ rotation
