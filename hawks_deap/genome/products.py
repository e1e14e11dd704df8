"""The small matrix products of genes, without the BLAS where that is free.

A BLAS rounds a matrix product differently under each of its CPU kernels (OpenBLAS
picks SkylakeX, Haswell, Zen or Sandybridge kernels by processor), so points computed
by ``@`` differ in their last bits from machine to machine. ``numpy.einsum`` (without
``optimize``) computes in its own loops, the same bits whatever the BLAS kernel. In one
and two dimensions it costs nothing measurable over a whole run, and with it 2-D runs
were byte-identical under every kernel measured (the 2x2 QR of the Haar draws, the one
LAPACK call left, gave the same bits under each); from three dimensions on, the
covariance mutation's QR and eigendecomposition depend on the BLAS anyway, and ``@`` is
two to three times faster (``benchmarks/bench_blas_steps.py``, BENCHMARKS.md
"Reproducibility across BLAS kernels").
"""

from __future__ import annotations

import numpy as np

__all__ = ["BLAS_FREE_MAX_DIMS", "rotation_product", "shape_points"]

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
