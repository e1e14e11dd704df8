"""`Table`, the small labelled 2-D table of floats of `hawks_deap.analysis.features`.

`features_table` and `performance_table` build it; `hawks_deap.analysis.stats` and
`hawks_deap.analysis.plotting` read it. ``hawks_deap.analysis.features.Table`` is the same class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hawks_deap._util.html import html_table
from hawks_deap._util.optional import optional_module
from hawks_deap._util.validation import check_choice

__all__ = ["Table"]


@dataclass(frozen=True)
class Table:
    """A small labelled 2-D table of floats (rows: datasets; columns: names).

    Attributes
    ----------
    index : tuple of str
        Row names (e.g. dataset paths).
    columns : tuple of str
        Column names (feature or algorithm names).
    values : numpy.ndarray of shape (len(index), len(columns))
        The values (read-only).
    """

    index: tuple[str, ...]
    columns: tuple[str, ...]
    values: np.ndarray

    def __post_init__(self) -> None:
        values = np.array(self.values, dtype=np.float64)
        index = tuple(str(i) for i in self.index)
        columns = tuple(str(c) for c in self.columns)
        if values.shape != (len(index), len(columns)):
            raise ValueError(f"values must have shape ({len(index)}, {len(columns)}), got "
                             f"{values.shape}")
        values.setflags(write=False)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "values", values)

    def __len__(self) -> int:
        return len(self.index)

    def column(self, name: str) -> np.ndarray:
        """The values of one column.

        Parameters
        ----------
        name : str
            A column name, one of ``columns``; any other raises a ValueError.

        Returns
        -------
        numpy.ndarray of shape (len(index),)
            A read-only view of that column of ``values``.
        """
        check_choice("column", name, self.columns)
        return self.values[:, self.columns.index(name)]

    def to_pandas(self, index_name: str = "dataset") -> Any:
        """The table as a ``pandas.DataFrame`` (pandas is optional: installed with dask).

        Parameters
        ----------
        index_name : str
            The name of the DataFrame's index (the row names).

        Returns
        -------
        pandas.DataFrame
            A copy of the values, float64, indexed by the row names.

        Raises
        ------
        ImportError
            When pandas is not installed, saying how to install it.
        """
        pd = optional_module("pandas", "Table.to_pandas", "pip install pandas")
        return pd.DataFrame(np.array(self.values), columns=list(self.columns),
                            index=pd.Index(list(self.index), name=index_name))

    def _repr_html_(self) -> str:
        rows = ([name, *(f"{v:.4g}" for v in row)]
                for name, row in zip(self.index, self.values, strict=True))
        return html_table(["dataset", *self.columns], rows, n_rows=len(self),
                          caption=f"Table: {len(self)} rows x {len(self.columns)} columns")

    def records(self) -> list[dict[str, float]]:
        """One ``{column: value}`` dict per row."""
        return [dict(zip(self.columns, map(float, row), strict=True)) for row in self.values]

    def to_csv(self, index_name: str = "dataset") -> str:
        """CSV text: a header ``index_name,columns...`` then one line per row.

        Floats are written with 17 significant digits (they read back exactly).

        Parameters
        ----------
        index_name : str
            Header of the first column, the row names. Any name (this one, a column's
            or a row's) with a comma, quote or newline is quoted, as CSV readers expect.

        Returns
        -------
        str
            The CSV text, ending with a newline.
        """
        lines = [",".join(map(_csv_field, [index_name, *self.columns]))]
        for name, row in zip(self.index, self.values, strict=True):
            lines.append(",".join([_csv_field(name), *(f"{v:.17g}" for v in row)]))
        return "\n".join(lines) + "\n"

    def to_text(self, index_name: str = "dataset", digits: int = 4) -> str:
        """An aligned plain-text rendering, for terminals.

        Parameters
        ----------
        index_name : str
            Header of the first column, the row names (left-aligned; the value columns
            are right-aligned).
        digits : int
            Significant digits of each value (``format(v, f".{digits}g")``).

        Returns
        -------
        str
            One line per row after the header line, ending with a newline.
        """
        head = [index_name, *self.columns]
        rows = [[name, *(f"{v:.{digits}g}" for v in row)]
                for name, row in zip(self.index, self.values, strict=True)]
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        fmt = [f"{{:<{widths[0]}}}", *(f"{{:>{w}}}" for w in widths[1:])]
        return "\n".join("  ".join(f.format(c) for f, c in zip(fmt, r, strict=True))
                         for r in [head, *rows]) + "\n"


def _csv_field(text: str) -> str:
    if any(c in text for c in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text
