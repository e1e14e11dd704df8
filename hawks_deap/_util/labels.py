"""Label arrays and their integer codes: the one label encoding of the package.

Every function that takes cluster labels (metrics, features, plots, the silhouette,
clustering algorithms, Versus scores) turns them into codes ``0..k-1`` here, so they all
accept the same labels and reject bad ones with the same messages.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

__all__ = ["as_label_array", "encode_labels"]


def as_label_array(labels: object, *, n_samples: int | None = None,
                   name: str = "labels") -> np.ndarray:
    """Return ``labels`` as a 1-D array, or raise a ``ValueError`` naming ``name``.

    Any hashable values are accepted. A sequence holding tuples (which numpy would turn
    into a 2-D array) becomes a 1-D object array, one label per element; a sequence of
    lists or arrays is rejected.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        The labels.
    n_samples : int, optional
        The required length (the number of rows of the data the labels describe).
    name : str
        The parameter name used in error messages.

    Returns
    -------
    numpy.ndarray of shape (n_samples,)
        ``labels`` itself when it already is a 1-D array.

    Raises
    ------
    ValueError
        If ``labels`` is not 1-D, not of length ``n_samples`` when that is given, or
        holds NaN.
    """
    if isinstance(labels, np.ndarray):
        arr = labels
    else:
        try:
            arr = np.asarray(labels)
            nested = arr.ndim > 1
        except ValueError:  # ragged nested sequences
            nested = True
        if nested:
            arr = _object_labels(labels, name)
    if n_samples is not None and (arr.ndim != 1 or arr.shape[0] != n_samples):
        raise ValueError(f"{name} must be a 1-D array of length {n_samples} (the number of "
                         f"rows of X), got shape {arr.shape}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of labels, got shape {arr.shape}")
    # NaN is no label: it equals nothing, not even itself, so it has no cluster (as
    # scikit-learn, which refuses it)
    if (np.isnan(arr).any() if arr.dtype.kind in "fc" else
            arr.dtype.kind == "O" and any(v != v for v in arr.tolist())):
        raise ValueError(f"{name} contains NaN; labels must be values that equal "
                         "themselves (e.g. integers)")
    return arr


def _object_labels(labels: object, name: str) -> np.ndarray:
    """A 1-D object array of a sequence of hashable labels (tuples stay whole)."""
    seq = list(labels)  # type: ignore[call-overload]
    if not all(isinstance(value, Hashable) for value in seq):
        raise ValueError(f"{name} must be a 1-D sequence of hashable labels, got a nested "
                         "sequence")
    arr = np.empty(len(seq), dtype=object)
    for i, value in enumerate(seq):
        arr[i] = value
    return arr


def encode_labels(labels: object, *, n_samples: int | None = None,
                  name: str = "labels") -> tuple[np.ndarray, int]:
    """Integer codes ``0..k-1`` of a labelling and the number ``k`` of distinct labels.

    Labels numpy can sort are coded in sorted order (the inverse of ``numpy.unique``,
    as scikit-learn's ``contingency_matrix`` does); labels it cannot sort (mixed types,
    arbitrary hashables) in order of first appearance. Labels that already are the codes
    ``0..k-1`` (what clustering algorithms return) are recognised in one pass, without
    a sort.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        Any hashable labels (see `as_label_array`).
    n_samples : int, optional
        The required length; the error message then names the rows of X.
    name : str
        The parameter name used in error messages.

    Returns
    -------
    codes : numpy.ndarray of intp, shape (n_samples,)
        A new array: ``codes[i]`` is the rank of ``labels[i]`` among the distinct labels.
    k : int
        The number of distinct labels (0 for no labels).

    Raises
    ------
    ValueError
        As `as_label_array`.

    Examples
    --------
    >>> codes, k = encode_labels(["b", "a", "b"])
    >>> codes.tolist(), k
    ([1, 0, 1], 2)
    """
    arr = as_label_array(labels, n_samples=n_samples, name=name)
    n = arr.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.intp), 0
    if arr.dtype.kind in "iu" and int(arr.min()) == 0:
        high = int(arr.max())
        if high < n:
            codes = arr.astype(np.intp, copy=True)
            if np.count_nonzero(np.bincount(codes, minlength=high + 1)) == high + 1:
                return codes, high + 1
    try:
        _, codes = np.unique(arr, return_inverse=True)
    except TypeError:  # not sortable: code in order of first appearance
        lookup: dict[object, int] = {}
        codes = np.fromiter((lookup.setdefault(v, len(lookup)) for v in arr.tolist()),
                            dtype=np.intp, count=n)
    # numpy 2 shapes the inverse like the input; reshape(-1) keeps it 1-D on every version
    codes = codes.reshape(-1).astype(np.intp, copy=False)
    return codes, int(codes.max()) + 1
