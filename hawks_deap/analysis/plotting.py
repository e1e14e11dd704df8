"""Figures of datasets, runs, Versus results and instance spaces (matplotlib).

Plotting is an optional extra: ``pip install "hawks-deap[plot]"``. matplotlib is
imported only when a function is called; without it they raise ``ImportError`` naming
the extra.

Every function draws into ``ax`` (or ``axes``) when given, else into a new figure, and
returns the `matplotlib.figure.Figure`. Save with `save_figure` (atomic write).

- `plot_dataset`: points coloured by cluster, with the covariance ellipses of the
  generating genes (or of the points); PCA projection for D > 2.
- `plot_convergence`: best and median fitness, index value (or Versus scores) and
  penalty per generation, from a run's logbook.
- `plot_versus`: truth, winner's and loser's partitions with their scores.
- `plot_instance_space`: datasets in a 2-D instance space, coloured by source or by
  best algorithm (HAWKS paper, Fig. 2), optionally with a marker per source.
- `plot_performance`: ARI boxplots per algorithm, optionally per source (Fig. 3).
- `plot_critical_difference`: Demšar's critical-difference diagram of a Friedman /
  Nemenyi comparison (`hawks_deap.analysis.stats.friedman_nemenyi`; Fig. 4) or of a
  comparison against a control (``friedman_control``).
- `algorithm_colours`: the fixed colour of each algorithm, the same in every figure
  (instance spaces by best algorithm, boxplots, CD diagrams).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hawks_deap._util.labels import as_label_array, encode_labels
from hawks_deap._util.validation import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_names,
    check_X,
)

if TYPE_CHECKING:
    from matplotlib.patches import Ellipse

__all__ = [
    "DPI_RANGE",
    "MAX_PIXELS",
    "algorithm_colours",
    "figure_bytes",
    "plot_convergence",
    "plot_critical_difference",
    "plot_dataset",
    "plot_fill",
    "plot_instance_space",
    "plot_performance",
    "plot_versus",
    "pyplot",
    "save_figure",
]

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
#: Noise points (a Dataset's `noise_mask`): grey, and smaller than the clusters' points.
_NOISE_COLOUR = "0.6"
#: Legends of `plot_dataset` list up to this many clusters (then the colours repeat).
_LEGEND_CLUSTERS = 12
_NOISE_SIZE = 0.4
#: Resolutions (dots per inch) of `save_figure`, `figure_bytes` and ``plot --dpi``, and the
#: most pixels a figure may have at it (4 bytes each while drawn; Agg: < 2**16 a side).
DPI_RANGE, MAX_PIXELS = (10, 1200), 100_000_000


def pyplot() -> Any:
    """``matplotlib.pyplot``, or an ImportError that names the extra to install."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "hawks_deap.analysis.plotting needs matplotlib, which is not installed: install the "
            "plot extra, e.g. pip install \"hawks-deap[plot]\""
        ) from error
    return plt


def _new_axes(ax: Any, **subplot_kw: Any) -> tuple[Any, Any]:
    if ax is not None:
        return ax.figure, ax
    plt = pyplot()
    fig, ax = plt.subplots(**subplot_kw)
    return fig, ax


def check_dpi(dpi: object, fig: Any = None) -> int:
    """``dpi`` if an integer in `DPI_RANGE` at which ``fig`` has at most `MAX_PIXELS`."""
    dpi = check_int("dpi", dpi, minimum=DPI_RANGE[0], maximum=DPI_RANGE[1])
    box = None if fig is None else fig.get_tightbbox()  # inches; savefig adds 0.1 a side
    width, height = (0, 0) if box is None else ((box.width + 0.2) * dpi,
                                                (box.height + 0.2) * dpi)
    if width * height > MAX_PIXELS or max(width, height) >= 2**16:
        raise ValueError(f"dpi={dpi}: the figure would be {width:,.0f} x {height:,.0f} "
                         f"pixels, more than {MAX_PIXELS:,} (or 65,536 a side); give a "
                         "smaller dpi")
    return dpi


def figure_bytes(fig: Any, name: str | os.PathLike, *, dpi: int = 150) -> bytes:
    """The file `save_figure` writes for a figure, as bytes.

    The format follows the extension of ``name`` (``.png``, ``.pdf``, ``.svg``, ...;
    PNG without one).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (saved with ``bbox_inches="tight"``).
    name : str or os.PathLike
        A file name; only its extension is used (nothing is written).
    dpi : int
        Resolution, dots per inch (default 150; `check_dpi`).

    Returns
    -------
    bytes
    """
    fmt = Path(name).suffix.lstrip(".").lower() or "png"
    dpi = check_dpi(dpi, None if fmt in ("pdf", "svg", "svgz", "eps", "ps") else fig)  # pixels
    buffer = io.BytesIO()
    # a PNG names hawks-deap as its software: an overwrite of a run's folder replaces
    # only the figures that carry the mark (`hawks_deap.io.dataset.check_replaceable`)
    metadata = {"Software": _figure_software()} if fmt == "png" else None
    fig.savefig(buffer, format=fmt, dpi=dpi, bbox_inches="tight", metadata=metadata)
    return buffer.getvalue()


def _figure_software() -> str:
    """The ``Software`` text of the PNG figures hawks-deap writes."""
    import matplotlib

    from hawks_deap.io.dataset import FIGURE_MARK, package_version

    return f"{FIGURE_MARK} {package_version()} (matplotlib {matplotlib.__version__})"


def save_figure(fig: Any, path: str | os.PathLike, *, dpi: int = 150) -> Path:
    """Write a figure atomically (temporary file in the same folder, then rename).

    The format follows the file extension (``.png``, ``.pdf``, ``.svg``, ...).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (`figure_bytes`).
    path : str or os.PathLike
        The file, replaced if it exists; its folder is created if missing.
    dpi : int
        Resolution, dots per inch (default 150), as `figure_bytes`.

    Returns
    -------
    Path
        ``path``.
    """
    from hawks_deap.io.dataset import write_bytes_atomic

    dpi = check_dpi(dpi)  # before the folder is made
    path = Path(path)
    write_bytes_atomic(path, figure_bytes(fig, path, dpi=dpi))
    return path


# --------------------------------------------------------------------------- projection


class _Projection:
    """Identity for D <= 2; else PCA of the points onto their first two axes."""

    def __init__(self, X: np.ndarray) -> None:
        self.n_dims = X.shape[1]
        self.center = X.mean(axis=0)
        self.ratio: np.ndarray | None = None
        if self.n_dims > 2:
            _, s, vt = np.linalg.svd(X - self.center, full_matrices=False)
            signs = np.sign(vt[np.arange(vt.shape[0]), np.argmax(np.abs(vt), axis=1)])
            vt = vt * np.where(signs == 0, 1.0, signs)[:, None]
            self.W = vt[:2].T
            var = s**2
            self.ratio = var[:2] / var.sum() if var.sum() > 0 else np.zeros(2)

    def points(self, X: np.ndarray) -> np.ndarray:
        if self.n_dims == 2:
            return X
        if self.n_dims == 1:
            return np.column_stack([X[:, 0], np.zeros(X.shape[0])])
        return (X - self.center) @ self.W

    def mean(self, mu: np.ndarray) -> np.ndarray:
        return self.points(np.asarray(mu, dtype=float)[None, :])[0]

    def covariance(self, cov: np.ndarray) -> np.ndarray:
        return cov if self.n_dims == 2 else self.W.T @ cov @ self.W

    def labels(self) -> tuple[str, str]:
        if self.n_dims == 2:
            return "x0", "x1"
        if self.n_dims == 1:
            return "x0", "cluster"
        assert self.ratio is not None  # set for n_dims > 2
        return (f"PC1 ({100 * self.ratio[0]:.0f}% of variance)",
                f"PC2 ({100 * self.ratio[1]:.0f}% of variance)")


def _ellipse(mean: np.ndarray, cov: np.ndarray, n_std: float, **kwargs: Any) -> Ellipse:
    from matplotlib.patches import Ellipse

    eigenvalues, eigenvectors = np.linalg.eigh((cov + cov.T) / 2)
    eigenvalues = np.clip(eigenvalues, 0.0, None)
    angle = float(np.degrees(np.arctan2(eigenvectors[1, 1], eigenvectors[0, 1])))
    width, height = 2 * n_std * np.sqrt(eigenvalues[::-1])
    return Ellipse(tuple(mean), width=float(width), height=float(height), angle=angle,
                   **kwargs)


# --------------------------------------------------------------------------- datasets


def _unpack_dataset(data: Any, y: Any, genotype: Any
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any, dict]:
    """X, labels, noise mask, genes and metadata of a Dataset or of bare points.

    Noise is a Dataset's own (`hawks_deap.Dataset.noise_mask`): labels given apart
    from the dataset, or with bare points, have none.
    """
    metadata: dict = {}
    noise = None
    if hasattr(data, "X") and hasattr(data, "y"):
        X = data.X
        if y is None:
            y = data.y
            noise = getattr(data, "noise_mask", None)
        genotype = getattr(data, "genotype", None) if genotype is None else genotype
        metadata = dict(getattr(data, "metadata", {}) or {})
    else:
        X = data
    X = check_X(X)  # NaN or inf would silently drop out of the plot
    if y is None:
        y = np.zeros(X.shape[0], dtype=int)
    y = as_label_array(y, n_samples=X.shape[0], name="y")
    noise = np.zeros(X.shape[0], dtype=bool) if noise is None else np.asarray(noise, bool)
    return X, y, noise, genotype, metadata


def plot_dataset(data: Any, y: Any = None, *, genotype: Sequence[Any] | None = None,
                 ax: Any = None, ellipses: bool = True, n_std: float = 2.0,
                 title: str | None = None, point_size: float | None = None) -> Any:
    """Scatter a labelled dataset with the covariance ellipse of each cluster.

    Parameters
    ----------
    data : Dataset or array of shape (N, D)
        A `hawks_deap.Dataset` (its X, y, genes and metadata are used) or the points.
    y : array of shape (N,), optional
        Cluster labels (default: the dataset's; one cluster for bare arrays).
    genotype : sequence of Cluster, optional
        Generating genes, one per label 0..K-1 (default: the dataset's). The ellipses
        show the genes' covariances centred on their means; without genes (or when
        the labels are not 0..K-1), the sample mean and covariance of each cluster.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    ellipses : bool
        Draw the ellipses.
    n_std : float
        Ellipse radius in standard deviations along each principal axis.
    title : str, optional
        Default: N, K, D and, if recorded in the metadata, the index value.
    point_size : float, optional
        Marker size (default from N).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    For D > 2 points, means and covariances are projected on the first two principal
    axes of the points (``W^T Sigma W`` for a covariance); for D = 1 clusters are drawn
    on separate rows, without ellipses.

    Noise points of a Dataset (`hawks_deap.Dataset.noise_mask`, e.g. those a
    clustering-benchmarks battery labels 0) belong to no cluster: they are drawn first,
    small and grey, labelled ``"noise"`` (for D = 1 on a row of their own), with no
    ellipse, and K counts the clusters only.

    Each cluster has one of 12 colours, none grey (that is the noise's), the same in
    `plot_versus`; they repeat from the 13th cluster on, and the legend (noise first,
    then each cluster's label) is drawn for up to 12 clusters.
    """
    ellipses = check_bool("ellipses", ellipses)
    n_std = check_float("n_std", n_std, low=0.0, low_open=True)
    if point_size is not None:
        point_size = check_float("point_size", point_size, low=0.0, low_open=True)
    X, y, noise, genotype, metadata = _unpack_dataset(data, y, genotype)
    fig, ax = _new_axes(ax, figsize=(5.5, 5))
    cluster_codes, k = encode_labels(y[~noise])
    codes = np.full(y.shape[0], -1)  # noise: -1
    codes[~noise] = cluster_codes
    values = np.empty(k, dtype=y.dtype)
    values[cluster_codes] = y[~noise]  # the label of each code, for the legend
    proj = _Projection(X)
    P = proj.points(X)
    if X.shape[1] == 1:
        P = P.copy()
        P[:, 1] = codes
    size = point_size if point_size is not None else float(np.clip(3000 / len(X), 2, 30))
    if noise.any():
        ax.scatter(P[noise, 0], P[noise, 1], s=size * _NOISE_SIZE, color=_NOISE_COLOUR,
                   alpha=0.6, linewidths=0, label="noise")
    genes_match = (genotype is not None and len(genotype) == k
                   and np.issubdtype(values.dtype, np.integer)
                   and np.array_equal(values, np.arange(k)))
    for c in range(k):
        mask = codes == c
        color = _cluster_colour(c)
        ax.scatter(P[mask, 0], P[mask, 1], s=size, color=color, alpha=0.6, linewidths=0,
                   label=str(values[c]))
        if not ellipses or X.shape[1] == 1:
            continue
        if genes_match:
            mean, cov = genotype[c].mean, genotype[c].covariance
        elif mask.sum() >= 2:
            mean, cov = X[mask].mean(axis=0), np.cov(X[mask], rowvar=False).reshape(
                X.shape[1], X.shape[1])
        else:
            continue
        ax.add_patch(_ellipse(proj.mean(mean), proj.covariance(cov), n_std,
                              fill=False, edgecolor=color, linewidth=1.6))
        centre = proj.mean(mean)
        ax.plot([centre[0]], [centre[1]], marker="x", color="black", markersize=6,
                linestyle="none")
    _label_axes(ax, proj, X.shape[1], values, bool(noise.any()))
    if 1 < k <= _LEGEND_CLUSTERS or (noise.any() and k <= _LEGEND_CLUSTERS):
        ax.legend(title="cluster", fontsize="small", loc="best", markerscale=2)
    ax.set_title(_dataset_title(X, k, metadata) if title is None else title)
    return fig


def _cluster_colour(code: int) -> str:
    """The colour of the cluster of code ``code`` (0..K-1), in every figure of a dataset.

    The 12 colours of the built-in algorithms (`_BUILTIN_COLOURS`: no grey, the noise's
    and the ties' colour), repeated from the 13th cluster on.
    """
    return _BUILTIN_COLOURS[code % len(_BUILTIN_COLOURS)]


def _label_axes(ax: Any, proj: _Projection, n_dims: int, values: np.ndarray,
                noise: bool) -> None:
    """Axis labels; for one dimension, one row per cluster (and one for noise)."""
    xlabel, ylabel = proj.labels()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if n_dims == 1:
        rows, names = list(range(len(values))), [str(v) for v in values]
        if noise:
            rows, names = [-1, *rows], ["noise", *names]
        ax.set_yticks(rows, names)
    else:
        ax.set_aspect("equal", adjustable="datalim")


def _dataset_title(X: np.ndarray, k: int, metadata: Mapping[str, Any]) -> str:
    """N, K, D, and the index value a run recorded."""
    title = f"N={X.shape[0]}, K={k}, D={X.shape[1]}"
    record = metadata.get("record") or {}
    if isinstance(record.get("index"), (int, float)):
        index = (metadata.get("problem") or {}).get("index", "silhouette")
        title += f", {index} {record['index']:.3f}"
    return title


# --------------------------------------------------------------------------- runs


def _columns(logbook: Any) -> dict[str, np.ndarray]:
    """``{column: values}`` from a deap Logbook, a list of dicts or a mapping of columns."""
    if isinstance(logbook, Mapping):
        return {k: np.asarray(v, dtype=float) for k, v in logbook.items()}
    rows = list(logbook)
    if not rows:
        raise ValueError("the logbook is empty")
    keys: list[str] = []
    for row in rows:
        keys.extend(k for k in row if k not in keys)
    out = {}
    for key in keys:
        try:
            out[key] = np.array([np.nan if row.get(key) in (None, "") else float(row[key])
                                 for row in rows])
        except (TypeError, ValueError):
            continue  # non-numeric column
    return out


def plot_convergence(logbook: Any, *, ax: Any = None, target: float | None = None,
                     title: str | None = None) -> Any:
    """Fitness, index value and penalty per generation of a run.

    Parameters
    ----------
    logbook : deap.tools.Logbook, list of dicts or mapping of columns
        ``Result.logbook`` (or ``logbook.csv`` read back): ``gen``, ``fitness_best``,
        ``fitness_median`` and, when present, ``index`` (Index mode), ``winner_score``
        and ``loser_score`` (Versus mode) and ``penalty``.
    ax : matplotlib Axes, optional
        Where to draw; the penalty goes on a twin y-axis on the right.
    target : float, optional
        Draw the index target as a horizontal line.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    pyplot()  # (an ImportError naming the extra when matplotlib is missing)
    from matplotlib.ticker import MaxNLocator

    cols = _columns(logbook)
    if "fitness_best" not in cols:
        raise ValueError(f"the logbook has no 'fitness_best' column (columns: "
                         f"{sorted(cols)})")
    fig, ax = _new_axes(ax, figsize=(6.5, 4))
    gen = cols.get("gen", np.arange(len(cols["fitness_best"])))
    ax.plot(gen, cols["fitness_best"], color="C0", linewidth=2, label="best fitness")
    if "fitness_median" in cols:
        ax.plot(gen, cols["fitness_median"], color="C0", linestyle="--",
                label="median fitness")
    if "index" in cols:
        ax.plot(gen, cols["index"], color="C2", label="index value (best)")
    for key, color, name in (("winner_score", "C2", "winner score"),
                             ("loser_score", "C3", "loser score")):
        if key in cols:
            ax.plot(gen, cols[key], color=color, linestyle="-.", label=name)
    if target is not None:
        ax.axhline(target, color="C2", linestyle=":", label=f"target {target:g}")
    ax.set_xlabel("generation")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("fitness / index value")
    handles, labels = ax.get_legend_handles_labels()
    if "penalty" in cols:
        twin = ax.twinx()
        penalty = cols["penalty"]
        twin.plot(gen, penalty, color="C1", linewidth=1.2, label="penalty (best)")
        twin.set_ylabel("penalty")
        top = float(np.nanmax(penalty)) if np.any(np.isfinite(penalty)) else 0.0
        top = top if top > 0 else 1.0
        twin.set_ylim(-0.03 * top, 1.05 * top)  # a zero penalty stays visible
        h2, l2 = twin.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    ax.legend(handles, labels, loc="best", fontsize="small")
    ax.set_title(title if title is not None else "convergence")
    return fig


def _match_colours(truth: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Relabel a partition with the colours of the true clusters it overlaps most.

    Hungarian matching on the contingency table; unmatched clusters get new colours.
    """
    from scipy.optimize import linear_sum_assignment

    t_codes, n_true = encode_labels(truth)
    p_codes, n_pred = encode_labels(labels)
    table = np.zeros((n_pred, n_true))
    np.add.at(table, (p_codes, t_codes), 1)
    rows, cols = linear_sum_assignment(-table)
    mapping = np.full(n_pred, -1)
    mapping[rows] = cols
    spare = iter(range(n_true, n_true + n_pred))
    for i in range(mapping.shape[0]):
        if mapping[i] < 0:
            mapping[i] = next(spare)
    return mapping[p_codes]


def plot_versus(X: Any, y: Any, winner_labels: Any, loser_labels: Any, *,
                winner: str = "winner", loser: str = "loser",
                winner_score: float | None = None, loser_score: float | None = None,
                score_name: str = "ARI", axes: Sequence[Any] | None = None) -> Any:
    """Three panels: the true clusters, the winner's and the loser's partitions.

    Parameters
    ----------
    X : array of shape (N, D)
        The points (projected by PCA when D > 2).
    y : array of shape (N,)
        True labels.
    winner_labels, loser_labels : array of shape (N,)
        The two algorithms' partitions; their colours are matched to the true clusters
        they overlap most.
    winner, loser : str
        Algorithm names for the titles.
    winner_score, loser_score : float, optional
        Their scores, shown in the titles.
    score_name : str
        Name of the score (``"ARI"``).
    axes : sequence of 3 matplotlib Axes, optional
        Where to draw; a new 1 x 3 figure by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    X = check_X(X)
    parts = [as_label_array(p, n_samples=X.shape[0], name=name) for name, p in
             (("y", y), ("winner_labels", winner_labels), ("loser_labels", loser_labels))]
    if axes is None:
        plt = pyplot()
        fig, axes = plt.subplots(1, 3, figsize=(13, 4.4), sharex=True, sharey=True)
    else:
        if len(axes) != 3:
            raise ValueError(f"axes must hold 3 Axes, got {len(axes)}")
        fig = axes[0].figure
    proj = _Projection(X)
    P = proj.points(X)
    truth_codes = encode_labels(parts[0])[0]
    colours = [truth_codes, _match_colours(parts[0], parts[1]),
               _match_colours(parts[0], parts[2])]

    def _title(role: str, name: str, score: float | None) -> str:
        return f"{role}: {name}" + ("" if score is None else f"  ({score_name} {score:.3f})")

    titles = ["truth", _title("winner", winner, winner_score),
              _title("loser", loser, loser_score)]
    size = float(np.clip(3000 / len(X), 2, 30))
    xlabel, ylabel = proj.labels()
    for ax, codes, title in zip(axes, colours, titles, strict=True):
        for c in np.unique(codes):
            mask = codes == c
            ax.scatter(P[mask, 0], P[mask, 1], s=size, color=_cluster_colour(int(c)),
                       alpha=0.7, linewidths=0)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
    axes[0].set_ylabel(ylabel)
    return fig


# --------------------------------------------------------------------------- collections


#: Colours of the built-in algorithms, by their place in `available_algorithms()`: the
#: tab10 colours without its grey (grey marks ties and noise), then three of tab20b.
_BUILTIN_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                    "#e377c2", "#bcbd22", "#17becf", "#393b79", "#637939", "#7b4173")
#: Colours of any other name (a user's algorithm), chosen by a hash of the name: a
#: palette apart from `_BUILTIN_COLOURS` (black first; then from ColorBrewer's Dark2,
#: Paired and Set2), none a shade of a built-in's.
_OTHER_COLOURS = ("#000000", "#1b9e77", "#e7298a", "#b15928", "#6a3d9a", "#ffd92f",
                  "#fb9a99", "#b2df8a", "#a6cee3", "#e5c494")
#: The label `best_algorithms` gives a dataset with several best algorithms.
_TIE_LABEL, _TIE_COLOUR = "tied", "#7f7f7f"


def algorithm_colours(names: Iterable[str]) -> dict[str, str]:
    """A fixed colour per algorithm name, the same in every figure.

    Parameters
    ----------
    names : iterable of str
        Algorithm names (one string is refused).

    Returns
    -------
    dict of str to str
        ``{name: "#rrggbb"}`` in the order given. A built-in algorithm
        (`hawks_deap.clustering.BUILTIN_ALGORITHMS`) gets the colour of its place in
        `hawks_deap.clustering.available_algorithms` (kmeans++ blue, gmm orange, ...);
        any other name one of a separate palette chosen by a hash (SHA-256) of the
        name, so it depends neither on the other names nor on the process. Two
        non-built-in names may share a colour (10 colours).

    Examples
    --------
    >>> algorithm_colours(["gmm", "kmeans++"])
    {'gmm': '#ff7f0e', 'kmeans++': '#1f77b4'}
    """
    import hashlib

    from hawks_deap.clustering import BUILTIN_ALGORITHMS, available_algorithms

    names = [str(n) for n in check_names("names", names)]
    builtins = [a for a in available_algorithms() if a in BUILTIN_ALGORITHMS]
    out = {}
    for name in names:
        if name in builtins:
            out[name] = _BUILTIN_COLOURS[builtins.index(name) % len(_BUILTIN_COLOURS)]
        else:
            digest = hashlib.sha256(name.encode("utf-8")).digest()
            out[name] = _OTHER_COLOURS[int.from_bytes(digest[:8], "big")
                                       % len(_OTHER_COLOURS)]
    return out


def _group_colours(names: Sequence[str], colours: Any) -> dict[str, Any]:
    """The colour of each group of `plot_instance_space` (its ``colours`` argument)."""
    from hawks_deap.clustering import available_algorithms, is_import_spec

    if colours is None:  # algorithms: registered names, plugins and import paths
        known = set(available_algorithms()) | {_TIE_LABEL}
        algorithms = all(n in known or is_import_spec(n) for n in names)
        colours = "algorithms" if algorithms and set(names) != {_TIE_LABEL} else "order"
    if isinstance(colours, str):
        check_choice("colours", colours, ("algorithms", "order"))
        if colours == "order":
            return {name: f"C{i % 10}" for i, name in enumerate(names)}
        out: dict[str, Any] = dict(algorithm_colours(names))
        if _TIE_LABEL in out:
            out[_TIE_LABEL] = _TIE_COLOUR
        return out
    if not isinstance(colours, Mapping):
        raise TypeError(f"colours must be None, 'algorithms', 'order' or a mapping of "
                        f"group to colour, got {type(colours).__name__}")
    missing = [name for name in names if name not in colours]
    if missing:
        raise ValueError(f"colours misses the groups {missing}")
    return {name: colours[name] for name in names}


def _labels_of(name: str, labels: Sequence[Any], n: int) -> list[str]:
    labels = [str(g) for g in check_names(name, labels)]
    if len(labels) != n:
        raise ValueError(f"{name} must have one label per dataset ({n}), got {len(labels)}")
    return labels


def plot_instance_space(coords: Any, groups: Sequence[str], *, space: Any = None,
                        ax: Any = None, title: str | None = None,
                        legend_title: str | None = None,
                        order: Sequence[str] | None = None,
                        colours: str | Mapping[str, Any] | None = None,
                        markers: Sequence[str] | None = None,
                        marker_title: str | None = "source") -> Any:
    """Datasets as points of an instance space, coloured by group (paper, Fig. 2).

    Parameters
    ----------
    coords : array of shape (n_datasets, 2)
        Coordinates, e.g. ``InstanceSpace.transform(features)``.
    groups : sequence of str
        One label per dataset: its source (Fig. 2a) or its best algorithm
        (`hawks_deap.analysis.features.best_algorithms`, Fig. 2b).
    space : InstanceSpace, optional
        Gives the axis labels (with explained variance).
    ax : matplotlib Axes, optional
        Where to draw.
    title, legend_title : str, optional
        Texts.
    order : sequence of str, optional
        Legend order (default: sorted).
    colours : None, "algorithms", "order" or mapping of str to colour
        ``"algorithms"``: each group is an algorithm, coloured by `algorithm_colours`
        (the same colour in every figure; ``"tied"``, `best_algorithms`' label of
        ties, grey). ``"order"``: matplotlib's C0, C1, ... in legend order. A mapping:
        the colour of each group. None (default): ``"algorithms"`` when every group is
        a registered algorithm, a plugin or an import path (or ``"tied"``), else
        ``"order"``.
    markers : sequence of str, optional
        A second label per dataset, e.g. its source, drawn as the marker shape (one
        shape per label, in sorted order), with a legend of its own (``marker_title``).
        Without it, each group has its own shape too.
    marker_title : str, optional
        Title of the markers' legend.

    Returns
    -------
    matplotlib.figure.Figure
        With ``markers``, each scatter has the gid ``"marker:<label>"``.
    """
    coords = np.asarray(coords, dtype=float)
    if coords.ndim != 2 or coords.shape[1] < 2:
        raise ValueError(f"coords must have shape (n, 2), got {coords.shape}")
    groups = _labels_of("groups", groups, coords.shape[0])
    shapes = None if markers is None else _labels_of("markers", markers, coords.shape[0])
    names = [str(n) for n in order] if order is not None else sorted(set(groups))
    missing = set(groups) - set(names)
    if missing:
        raise ValueError(f"order misses the groups {sorted(missing)}")
    colour_of = _group_colours(names, colours)
    fig, ax = _new_axes(ax, figsize=(6, 5))
    if shapes is None:
        _scatter_groups(ax, coords, np.array(groups), names, colour_of)
        ax.legend(title=legend_title, fontsize="small", loc="best")
    else:
        _scatter_markers(ax, coords, np.array(groups), np.array(shapes), names, colour_of,
                         legend_title, marker_title)
    xlabel, ylabel = (space.axis_labels()[:2] if space is not None else ("PC1", "PC2"))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title if title is not None else "instance space")
    return fig


def plot_fill(coords: Any, groups: Sequence[str], targets: Any, reached: Any, *,
              grid: Any = None, space: Any = None, ax: Any = None,
              title: str | None = None) -> Any:
    """A filled instance space: the collection, the gaps' targets and the filled datasets.

    Parameters
    ----------
    coords : array of shape (n_datasets, 2)
        The collection's coordinates.
    groups : sequence of str
        Each dataset's source (colours, as `plot_instance_space`).
    targets, reached : array of shape (n_targets, 2)
        Each target, and the point its run reached (NaN: not run yet); a line joins them.
    grid : CoverageGrid, optional
        Its region's cells are shaded (`hawks_deap.analysis.gaps.CoverageGrid`).
    space : InstanceSpace, optional
        Gives the axis labels.
    ax : matplotlib Axes, optional
        Where to draw.
    title : str, optional
        Default: the number of targets reached.

    Returns
    -------
    matplotlib.figure.Figure
    """
    targets = np.asarray(targets, dtype=float)
    reached = np.asarray(reached, dtype=float)
    if targets.ndim != 2 or targets.shape[1] != 2 or reached.shape != targets.shape:
        raise ValueError(f"targets and reached must have the same shape (n, 2), got "
                         f"{targets.shape} and {reached.shape}")
    fig, ax = _new_axes(ax, figsize=(7, 6))
    if grid is not None:  # the region, drawn under everything
        from matplotlib.colors import ListedColormap

        extent = (grid.origin[0], grid.origin[0] + grid.shape[0] * grid.cell,
                  grid.origin[1], grid.origin[1] + grid.shape[1] * grid.cell)
        ax.imshow(grid.inside.T.astype(float), origin="lower", extent=extent,
                  cmap=ListedColormap(["white", "#eeeeee"]), vmin=0, vmax=1,
                  interpolation="nearest", zorder=0)
    plot_instance_space(coords, groups, space=space, ax=ax, colours="order")
    done = np.all(np.isfinite(reached), axis=1)
    for (tx, ty), (rx, ry) in zip(targets[done], reached[done], strict=True):
        ax.plot([tx, rx], [ty, ry], color="black", linewidth=0.6, zorder=3)
    ax.scatter(targets[:, 0], targets[:, 1], marker="x", s=30, color="black", zorder=4,
               label="target")
    ax.scatter(reached[done, 0], reached[done, 1], marker="*", s=60, color="crimson",
               zorder=5, label="filled")
    ax.legend(fontsize="small", loc="best")
    ax.set_title(title if title is not None else
                 f"{int(done.sum())} of {len(targets)} gaps filled")
    return fig


def _scatter_groups(ax: Any, coords: np.ndarray, labels: np.ndarray, names: list[str],
                    colour_of: Mapping[str, Any]) -> None:
    """One scatter per group: its colour, and a shape by legend place."""
    for i, name in enumerate(names):
        mask = labels == name
        if mask.any():
            ax.scatter(coords[mask, 0], coords[mask, 1], s=36, color=colour_of[name],
                       marker=_MARKERS[i % len(_MARKERS)], alpha=0.8, edgecolors="none",
                       label=name)


def _scatter_markers(ax: Any, coords: np.ndarray, labels: np.ndarray, shapes: np.ndarray,
                     names: list[str], colour_of: Mapping[str, Any],
                     legend_title: str | None, marker_title: str | None) -> None:
    """One scatter per (group, marker label); a colour legend and a marker legend."""
    from matplotlib.lines import Line2D

    kinds = sorted(set(shapes.tolist()))
    marker_of = {kind: _MARKERS[i % len(_MARKERS)] for i, kind in enumerate(kinds)}
    for name in names:
        for kind in kinds:
            mask = (labels == name) & (shapes == kind)
            if mask.any():
                ax.scatter(coords[mask, 0], coords[mask, 1], s=36, color=colour_of[name],
                           marker=marker_of[kind], alpha=0.8, edgecolors="none",
                           gid=f"marker:{kind}")
    shown = [n for n in names if (labels == n).any()]
    shape_legend = ax.legend(
        handles=[Line2D([], [], marker=marker_of[k], color="0.3", linestyle="none",
                        label=k) for k in kinds],
        title=marker_title, fontsize="small", loc="lower right")
    ax.add_artist(shape_legend)  # a second ax.legend call would replace it
    ax.legend(handles=[Line2D([], [], marker="o", color=colour_of[n], linestyle="none",
                              label=n) for n in shown],
              title=legend_title, fontsize="small", loc="upper left")


def plot_performance(table: Any, *, groups: Sequence[str] | None = None, ax: Any = None,
                     title: str | None = None, ylabel: str = "ARI") -> Any:
    """Boxplots of each algorithm's scores over datasets (paper, Fig. 3).

    Parameters
    ----------
    table : hawks_deap.analysis.features.Table or mapping of str to Table
        From `hawks_deap.analysis.features.performance_table`: one row per dataset, one column
        per algorithm; or ``{source: table}`` (same columns), one group per source in
        the mapping's order, as the paper's Fig. 3 (HAWKS, HK, QJ, SIPU, UCI, UKC).
    groups : sequence of str, optional
        One label per dataset of a single table (e.g. its source): one box per
        (algorithm, group), side by side, groups in sorted order.
    ax : matplotlib Axes, optional
        Where to draw.
    title : str, optional
        Axes title.
    ylabel : str
        Label of the score axis.

    Returns
    -------
    matplotlib.figure.Figure
        Each algorithm's name (x tick label), and its boxes when there are no groups,
        in its `algorithm_colours` colour; with groups, the boxes in the group's colour.
    """
    order = None
    if isinstance(table, Mapping):
        if groups is not None:
            raise ValueError("groups must be left out with a mapping of tables (its keys "
                             "are the groups)")
        from hawks_deap.analysis.stats import join_tables

        order = [str(source) for source in table]
        table, groups = join_tables(table)
    values = np.asarray(table.values, dtype=float)
    columns = list(table.columns)
    if groups is None:
        group_names = [""]
        group_of = np.zeros(values.shape[0], dtype=int)
    else:
        groups = [str(g) for g in groups]
        if len(groups) != values.shape[0]:
            raise ValueError(f"groups must have one label per dataset ({values.shape[0]}), "
                             f"got {len(groups)}")
        group_names = order if order is not None else sorted(set(groups))
        group_of = np.array([group_names.index(g) for g in groups])
    n_groups = len(group_names)
    fig, ax = _new_axes(ax, figsize=(max(6.0, 1.1 * len(columns) * max(1, n_groups / 2)),
                                     4.2))
    width = 0.8 / n_groups
    from matplotlib.patches import Patch

    algorithm_colour = algorithm_colours(columns)
    for g in range(n_groups):
        data = [values[group_of == g, j] for j in range(len(columns))]
        positions = np.arange(len(columns)) + (g - (n_groups - 1) / 2) * width
        box = ax.boxplot(data, positions=positions, widths=width * 0.85, patch_artist=True,
                         manage_ticks=False)
        for patch, name in zip(box["boxes"], columns, strict=True):
            # one group: each box in its algorithm's colour (as in every figure); several:
            # the group's colour tells the boxes of one algorithm apart
            patch.set_facecolor(f"C{g % 10}" if n_groups > 1 else algorithm_colour[name])
            patch.set_alpha(0.55)
        for median in box["medians"]:
            median.set_color("black")
    ax.set_xticks(np.arange(len(columns)), columns, rotation=30, ha="right")
    for label in ax.get_xticklabels():  # the algorithm's colour, with or without groups
        label.set_color(algorithm_colour[label.get_text()])
    ax.set_xlim(-0.6, len(columns) - 0.4)
    ax.set_ylabel(ylabel)
    ax.set_xlabel("algorithm")
    if n_groups > 1:
        ax.legend(handles=[Patch(facecolor=f"C{g % 10}", alpha=0.55, label=name)
                           for g, name in enumerate(group_names)], fontsize="small")
    ax.set_title(title if title is not None else f"{ylabel} per algorithm")
    return fig


def plot_critical_difference(result: Any, *, ax: Any = None, title: str | None = None,
                             digits: int = 2) -> Any:
    """Critical-difference diagram of a Friedman comparison (paper, Fig. 4; Demšar 2006).

    Demšar's (2006) layout: an axis of average ranks (1 = best, on the left), each
    algorithm joined by a line (in its `algorithm_colours` colour) to its label and
    average rank (the better half on the left), and

    - for a `FriedmanNemenyi` (all pairs, Demšar's Fig. 1): the critical difference as
      a bar above the axis, and a thick bar under it for each group of algorithms that
      do not differ significantly (`FriedmanNemenyi.cliques`);
    - for a `FriedmanControl` (against a control, Demšar's Fig. 2): the control marked
      on the axis and its label in bold; with Bonferroni-Dunn, a bar of the CD on each
      side of the control's rank above the axis; and (both methods) a thick bar under
      the axis joining the control to the algorithms not significantly different from
      it (`FriedmanControl.not_different`).

    Parameters
    ----------
    result : hawks_deap.analysis.stats.FriedmanNemenyi or FriedmanControl
        From `hawks_deap.analysis.stats.friedman_nemenyi` or ``friedman_control``.
    ax : matplotlib Axes, optional
        Where to draw (its frame is hidden).
    title : str, optional
        Default: the test, alpha and N.
    digits : int
        Decimals of the ranks and the CD in the labels.

    Returns
    -------
    matplotlib.figure.Figure
        Nemenyi: the CD bar's line has gid ``"critical-difference"``, the clique bars
        ``"clique"`` (one per clique, in `FriedmanNemenyi.cliques` order). Control:
        the control's mark ``"control"``, the Bonferroni-Dunn CD bar (from
        ``R_control - CD`` to ``R_control + CD``) ``"critical-difference"``, the bar
        of the algorithms not different from the control ``"not-different"`` (none
        when every algorithm differs).
    """
    from hawks_deap.analysis.stats import FriedmanControl, FriedmanNemenyi

    if not isinstance(result, (FriedmanNemenyi, FriedmanControl)):
        raise TypeError(f"result must be a FriedmanNemenyi (from friedman_nemenyi) or a "
                        f"FriedmanControl (from friedman_control), got "
                        f"{type(result).__name__}")
    digits = check_int("digits", digits, minimum=0)
    control = result if isinstance(result, FriedmanControl) else None
    ranking = result.ranking()
    k, cd = len(ranking), float(result.critical_difference)
    bars = _cd_bars(result, control is not None)
    n_left = (k + 1) // 2
    fig, ax = _new_axes(ax, figsize=(7.0, 1.4 + 0.3 * n_left + 0.12 * len(bars)))
    if control is not None:
        centre = control.control_rank
        interval = ((centre - cd, centre + cd) if control.method == "bonferroni-dunn"
                    else None)
    else:
        interval = (1.0, 1.0 + cd)
    low, high = 1.0, float(k)
    left = min(low, interval[0]) if interval else low
    right = max(high, interval[1]) if interval else high
    pad = 0.12 * (right - left)  # label lines end this far past the axis
    _cd_axis(ax, k)
    cd_y = 0.7
    if interval is not None:
        ax.plot(list(interval), [cd_y, cd_y], color="black", lw=1.5,
                gid="critical-difference")
        ax.vlines(list(interval), cd_y - 0.05, cd_y + 0.05, color="black", lw=1.5)
        ax.text(sum(interval) / 2, cd_y + 0.08, f"CD = {cd:.{digits}f}", ha="center",
                va="bottom", fontsize="small")
    rank_of = dict(ranking)
    for c, (members, gid) in enumerate(bars):
        ranks = [rank_of[name] for name in members]
        y = -0.15 - 0.12 * c
        ax.plot([min(ranks) - 0.03, max(ranks) + 0.03], [y, y], color="black", lw=3.5,
                solid_capstyle="round", gid=gid)
    top, step = -0.35 - 0.12 * len(bars), 0.3
    if control is not None:
        ax.plot([centre], [0.0], marker="D", color="black", markersize=7,
                linestyle="none", gid="control", zorder=3)
    _cd_labels(ax, ranking, (left - pad, right + pad), top, step, digits,
               None if control is None else control.control)
    ax.set_xlim(left - pad, right + pad)
    ax.set_ylim(top - step * n_left, cd_y + 0.45)
    ax.set_axis_off()
    ax.set_title(title if title is not None else _cd_title(result, control is not None),
                 fontsize="medium")
    return fig


def _cd_bars(result: Any, control: bool) -> list[tuple[tuple[str, ...], str]]:
    """The bars under the axis: ``(members, gid)``, top first."""
    if not control:
        return [(clique, "clique") for clique in result.cliques]
    members = result.not_different()
    return [(members, "not-different")] if len(members) >= 2 else []


def _cd_title(result: Any, control: bool) -> str:
    if not control:
        return (f"Nemenyi critical difference (alpha = {result.alpha:g}, "
                f"N = {result.n_datasets})")
    method = "Holm" if result.method == "holm" else "Bonferroni-Dunn"
    return (f"{method} against {result.control} (alpha = {result.alpha:g}, "
            f"N = {result.n_datasets})")


def _cd_axis(ax: Any, k: int) -> None:
    """The rank axis from 1 to k, ticks at the halves, numbers at the integers."""
    ax.hlines(0.0, 1.0, float(k), color="black", linewidth=1.2)
    for tick in np.arange(2.0, 2.0 * k + 1.0) / 2.0:
        ax.vlines(tick, 0.0, 0.1 if tick.is_integer() else 0.05, color="black", lw=1)
        if tick.is_integer():
            ax.text(tick, 0.15, f"{tick:g}", ha="center", va="bottom", fontsize="small")


def _cd_labels(ax: Any, ranking: list[tuple[str, float]], ends: tuple[float, float],
               top: float, step: float, digits: int, control: str | None) -> None:
    """Each algorithm's line, from its rank to its label, in its colour."""
    n_left = (len(ranking) + 1) // 2
    colour = algorithm_colours([name for name, _ in ranking])
    # the better half goes left, best on top; the other half right, worst on top: no
    # label line crosses another
    sides = ((ranking[:n_left], ends[0], "right"),
             (ranking[n_left:][::-1], ends[1], "left"))
    for names, x_end, align in sides:
        for i, (name, rank) in enumerate(names):
            y = top - step * i
            ax.plot([rank, rank, x_end], [0.0, y, y], color=colour[name], lw=1.2)
            ax.text(x_end + (0.03 if align == "left" else -0.03), y,
                    f"{name} ({rank:.{digits}f})", ha=align, va="center",
                    fontsize="small", fontweight="bold" if name == control else "normal")
