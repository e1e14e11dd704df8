"""Types of the C extension built from ``_native.c`` (see that file)."""

from typing_extensions import Buffer

def grid_flags(X: Buffer, codes: Buffer, out: Buffer, n: int, dims: int) -> bool: ...
def silhouette_2d(X: Buffer, offs: Buffer, centroids: Buffer, spread: Buffer,
                  scatter: Buffer, counts: Buffer, out: Buffer, n: int, k: int) -> None: ...
