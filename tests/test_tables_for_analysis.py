"""Tables people can analyse (issue 35, item 6): `Table.to_pandas`, a suite's summary as a
DataFrame, and HTML renderings of a `Table`, a Friedman/Nemenyi result and a `Dataset`
for notebooks."""

import html

import numpy as np
import pytest

import hawks_deap as hd
from hawks_deap._util.html import MAX_ROWS
from hawks_deap.analysis import Table, friedman_nemenyi
from hawks_deap.campaign import suite as hs

pd = pytest.importorskip("pandas")

GRID = """
[suite]
runs = 2
seed = 4
[dataset]
n_samples = 60
n_clusters = [2, 3]
[ga]
generations = 2
population_size = 4
"""


def test_to_pandas_holds_the_same_values_and_names():
    table = Table(("a", "b,c"), ("x", "y"), [[1.0, np.nan], [0.1 + 0.2, -np.inf]])
    frame = table.to_pandas()
    assert list(frame.index) == ["a", "b,c"] and frame.index.name == "dataset"
    assert list(frame.columns) == ["x", "y"]
    np.testing.assert_array_equal(frame.to_numpy(), table.values)  # NaN and inf kept
    frame.iloc[0, 0] = 5.0  # a copy: the table is read-only and stays as it was
    assert table.values[0, 0] == 1.0


def test_a_table_renders_escaped_and_capped_in_html():
    names = [f"<d{i}>" for i in range(3 * MAX_ROWS)]
    table = Table(names, ("a&b",), np.arange(len(names), dtype=float)[:, None])
    text = table._repr_html_()
    assert "<d0>" not in text and html.escape("<d0>") in text and "a&amp;b" in text
    assert f"... {len(names) - MAX_ROWS} more rows ..." in text
    assert text.count("<tr>") == MAX_ROWS + 2  # header, shown rows, the filler row
    assert html.escape(names[-1]) in text and html.escape(names[MAX_ROWS]) not in text


def test_friedman_nemenyi_renders_its_test_and_ranking():
    rng = np.random.default_rng(0)
    scores = Table([f"d{i}" for i in range(12)], ("good", "mid", "bad"),
                   np.column_stack([0.9 + rng.normal(0, 0.01, 12), 0.5 + rng.normal(0, 0.01, 12),
                                    0.1 + rng.normal(0, 0.01, 12)]))
    result = friedman_nemenyi(scores)
    text = result._repr_html_()
    assert f"p = {result.pvalue:.3g}" in text and "rejected" in text
    assert text.index("good") < text.index("mid") < text.index("bad")  # best first
    assert f"{result.critical_difference:.4g}" in text


def test_a_dataset_renders_its_sizes_and_record():
    X, y, dataset = hd.make_hawks(n_samples=60, n_clusters=3, generations=2,
                                  random_state=1, return_model=True)
    text = dataset._repr_html_()
    sizes = np.bincount(y)
    assert ", ".join(f"{k}: {n}" for k, n in enumerate(sizes)) in text
    assert f"{dataset.metadata['record']['index']:.6g}" in text
    assert hd.Dataset(X, y)._repr_html_().count("<tr>") == 6  # header + N, D, K, sizes, genes


def test_a_suite_summary_as_a_dataframe(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    out = tmp_path / "suite"
    assert hs.summary_frame(out).empty  # no summary yet
    hs.run_suite(hs.load_suite(grid), out)
    frame = hs.summary_frame(out)
    rows = hs.summary_rows(out)
    assert len(frame) == len(rows) == 4
    assert frame.index.names == ["config_id", "run"]
    assert frame.index.is_monotonic_increasing
    assert frame["seed"].dtype == np.int64 and frame["n_clusters"].dtype == np.int64
    assert frame["fitness"].dtype == np.float64
    assert not pd.api.types.is_numeric_dtype(frame["mean_mutation"])  # text stays text
    first = rows[0]
    assert frame.loc[(first["config_id"], int(first["run"])), "fitness"] == float(
        first["fitness"])
    assert sorted(frame["n_clusters"].unique().tolist()) == [2, 3]
