"""`Table`, the small labelled 2-D table of floats of `hawks_deap.analysis.features`.

`features_table` and `performance_table` build it; `hawks_deap.analysis.stats` and
`hawks_deap.analysis.plotting` read it. ``hawks_deap.analysis.features.Table`` is the same class.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
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

    @classmethod
    def from_labelled(cls, data: Any, index: Sequence[str] | None = None) -> Table:
        """A Table of labelled data, keeping its row and column names.

        Parameters
        ----------
        data : Table, pandas.DataFrame or mapping of str to sequence of float
            A DataFrame (its index gives the row names, its columns the column names;
            pandas is not imported for this: a DataFrame can only exist once pandas is),
            or ``{column: values}`` (every column of the same length, in the mapping's
            order), or a Table (returned as it is when ``index`` is None).
        index : sequence of str, optional
            Row names, one per row; they replace a DataFrame's or a Table's. Default for
            a mapping: ``"0"``, ``"1"``, ...

        Returns
        -------
        Table
            The values as float64; names as ``str``.

        Raises
        ------
        TypeError
            If ``data`` is none of these, or a value is not a number.
        ValueError
            If the columns of a mapping differ in length, a mapping is empty, or
            ``index`` does not name every row.

        Examples
        --------
        >>> t = Table.from_labelled({"kmeans++": [0.9, 0.5], "gmm": [0.7, 0.6]},
        ...                         index=["a", "b"])
        >>> t.columns, t.records(index_name="dataset")[1]
        (('kmeans++', 'gmm'), {'dataset': 'b', 'kmeans++': 0.5, 'gmm': 0.6})
        """
        if isinstance(data, Table):
            table = data
        elif _is_dataframe(data):
            table = _from_frame(cls, data)
        elif isinstance(data, Mapping):
            table = _from_mapping(cls, data)
        else:
            raise TypeError(f"data must be a Table, a pandas DataFrame or a mapping of "
                            f"column name to values, got {type(data).__name__}")
        if index is None:
            return table
        if isinstance(index, str):
            raise TypeError(f"index must be a sequence of row names, not one string: "
                            f"{index!r}")
        names = tuple(str(i) for i in index)
        if len(names) != len(table):
            raise ValueError(f"index must name the {len(table)} rows, got {len(names)} "
                             "names")
        return cls(names, table.columns, table.values)

    @staticmethod
    def is_labelled(data: Any) -> bool:
        """Whether `from_labelled` takes ``data``: a Table, a DataFrame or a mapping.

        Parameters
        ----------
        data : object
            Anything; pandas is not imported to tell (a DataFrame exists only once it is).

        Returns
        -------
        bool
        """
        return isinstance(data, (Table, Mapping)) or _is_dataframe(data)

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

    def records(self, index_name: str | None = None) -> list[dict[str, Any]]:
        """One ``{column: value}`` dict per row, with the row's name if asked.

        Parameters
        ----------
        index_name : str, optional
            When given, each dict starts with ``{index_name: row name}`` (the key may not
            be a column's name). None (the default, as before this parameter existed):
            the values only, e.g. for ``zip(table.index, table.records())``.

        Returns
        -------
        list of dict
            In row order; values as ``float``.

        Raises
        ------
        TypeError
            If ``index_name`` is not a string.
        ValueError
            If ``index_name`` is one of the `columns` (the name would hide its values).
        """
        if index_name is not None:
            if not isinstance(index_name, str):
                raise TypeError(f"index_name must be a string or None, got "
                                f"{type(index_name).__name__}")
            if index_name in self.columns:
                raise ValueError(f"index_name {index_name!r} is a column's name; give "
                                 "another key for the row names")
        rows = [dict(zip(self.columns, map(float, row), strict=True)) for row in self.values]
        if index_name is None:
            return rows
        return [{index_name: name, **row} for name, row in zip(self.index, rows, strict=True)]

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


def _is_dataframe(data: Any) -> bool:
    """Whether ``data`` is a pandas DataFrame, without importing pandas."""
    # a DataFrame exists only once pandas is imported: look it up, never import it
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(data, pandas.DataFrame)


def _numbers(name: str, values: Any) -> np.ndarray:
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold numbers only") from None


def _from_frame(cls: type[Table], frame: Any) -> Table:
    values = _numbers("the DataFrame's columns", frame.to_numpy())
    return cls(tuple(str(i) for i in frame.index), tuple(str(c) for c in frame.columns),
               values)


def _from_mapping(cls: type[Table], data: Mapping[Any, Any]) -> Table:
    if not data:
        raise ValueError("data must hold at least one column, got an empty mapping")
    columns = {str(k): _numbers(f"data[{k!r}]", v) for k, v in data.items()}
    if len(columns) != len(data):
        raise ValueError(f"data's column names must be distinct as strings, got "
                         f"{list(data)}")
    lengths = {k: v.shape for k, v in columns.items()}
    if any(len(s) != 1 for s in lengths.values()) or len(set(lengths.values())) != 1:
        raise ValueError(f"data's columns must be 1-D and of one length, got shapes "
                         f"{lengths}")
    values = np.column_stack(list(columns.values()))
    return cls(tuple(str(i) for i in range(values.shape[0])), tuple(columns), values)


def _csv_field(text: str) -> str:
    if any(c in text for c in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text
