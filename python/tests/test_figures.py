"""The figures as objects: legends that explain every colour, titles, and shared scales where
panels are compared (the 2020 study's file: both maps, three workloads)."""

import matplotlib.colors as mcolors
import pytest

from conftest import REFERENCE_2020
from dbf0lab import analysis, figures


@pytest.fixture(scope="module")
def data():
    return analysis.load([REFERENCE_2020], warn=lambda _: None)


def legend_texts(legend):
    return [t.get_text() for t in legend.get_texts()]


def bar_colours(ax):
    return {mcolors.to_hex(p.get_facecolor()) for p in ax.patches}


def test_best_configurations_has_a_colour_legend_for_every_map(data):
    fig = figures.best_configurations(data)
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None and legend.get_title().get_text() == "map"
    assert sorted(legend_texts(legend)) == ["concurrent", "hashtable"]
    explained = {mcolors.to_hex(h.get_facecolor()) for h in legend.legend_handles}
    assert bar_colours(ax) <= explained
    assert ax.get_title()


def test_threading_impact_explains_every_colour_and_shares_its_y_scale(data):
    fig = figures.threading_impact(data)
    assert len(fig.legends) == 1
    texts = legend_texts(fig.legends[0])
    assert texts == [
        "1 server, 1 client thread",
        "best thread setting, concurrent",
        "best thread setting, hashtable",
    ]
    explained = {mcolors.to_hex(h.get_facecolor()) for h in fig.legends[0].legend_handles}
    panels = fig.axes
    assert len(panels) == 3
    for ax in panels:
        assert bar_colours(ax) <= explained, ax.get_title()
        assert panels[0].get_shared_y_axes().joined(panels[0], ax)
    assert len({ax.get_ylim() for ax in panels}) == 1
    assert fig.get_suptitle()


def test_ops_vs_client_threads_has_a_title_and_no_pale_line(data):
    fig = figures.ops_vs_client_threads(data)
    assert (
        fig.get_suptitle() == "Throughput against client threads, one line per server thread count"
    )
    for ax in fig.axes:
        for line in ax.get_lines():
            r, g, b = mcolors.to_rgb(line.get_color())
            assert 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.75, (ax.get_title(), line.get_label())
    legend = fig.axes[len(fig.axes) // 3 - 1].get_legend()
    assert legend.get_title().get_text() == "server threads"
