"""Small HTML renderings for notebooks (``_repr_html_``): escaped, and capped in size."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

__all__ = ["MAX_ROWS", "html_table"]

#: Rows a notebook rendering shows: the first and last halves, and how many are left out.
MAX_ROWS = 20


def html_table(header: Sequence[str], rows: Iterable[Sequence[str]], *, caption: str = "",
               n_rows: int | None = None) -> str:
    """An HTML ``<table>`` of already formatted cells, every text escaped.

    Parameters
    ----------
    header : sequence of str
        The column headers.
    rows : iterable of sequence of str
        The cells, row by row; at most `MAX_ROWS` are shown (the first and the last
        halves, with a row saying how many were left out).
    caption : str
        A caption above the table (empty: none).
    n_rows : int, optional
        The number of rows, when ``rows`` is a generator (default: counted).

    Returns
    -------
    str
    """
    rows = list(rows)
    n = len(rows) if n_rows is None else n_rows
    if n > MAX_ROWS:
        half = MAX_ROWS // 2
        hidden = n - 2 * half
        filler = [f"... {hidden} more rows ..."] + [""] * (len(header) - 1)
        rows = [*rows[:half], filler, *rows[-half:]]
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header)
               + "</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row)
                   + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)
