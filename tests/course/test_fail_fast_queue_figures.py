"""Notebook 04's figures: waits and calls drawn apart, refusals visible, one time axis, the shared palette."""

from __future__ import annotations

import fail_fast_queue_runs as fake
import matplotlib.colors as mcolors
from drawn import line
from matplotlib.patches import Rectangle

from bulkhead_lab.course.fail_fast_queue import figures
from bulkhead_lab.course.ui.style import EVENT, IDLE, REFUSED, TRACKING, to_png
from bulkhead_lab.live.orders.reading import burst


def _bars(ax, color: str) -> list[Rectangle]:
    return [
        p for p in ax.patches if isinstance(p, Rectangle) and mcolors.same_color(p.get_facecolor(), color)
    ]


def test_the_three_variants_share_one_time_axis() -> None:
    for run in (fake.shared("node"), fake.separate(), fake.limited()):
        fig = figures.orders_figure(run, xmax=burst.LESSON_AXIS)
        assert len(fig.axes) == 3
        assert all(ax.get_xlim() == (0.0, burst.LESSON_AXIS) for ax in fig.axes)
        to_png(fig)  # draws without error


def test_each_order_is_drawn_as_its_wait_then_its_call() -> None:
    top = figures.orders_figure(fake.limited(), xmax=15).axes[0]
    waits = [p for p in _bars(top, IDLE) if p.get_width() > 1]
    assert len(waits) == 5 and all(abs(p.get_width() - 3.0) < 1e-9 for p in waits)  # orders 6-10: a round
    calls = _bars(top, EVENT)
    assert len(calls) == 10 and all(abs(p.get_width() - 3.0) < 1e-9 for p in calls)
    assert len(_bars(top, TRACKING)) == 10  # the stock checks' Inventory calls


def test_refusals_are_crosses_and_said_in_words_where_they_happen() -> None:
    fig = figures.orders_figure(fake.limited(), xmax=15)
    top, payment, _ = fig.axes
    (crosses,) = [ln for ln in top.get_lines() if ln.get_marker() == "X"]
    assert len(crosses.get_xdata()) == 10 and mcolors.same_color(crosses.get_color(), REFUSED)
    assert any("10 orders refused at once" in t.get_text() for t in top.texts)
    assert max(line(payment, "refused so far (rejected)").get_ydata()) == 10


def test_the_queue_is_a_line_over_time_on_both_sides() -> None:
    _, payment, inventory = figures.orders_figure(fake.shared("node"), xmax=15).axes
    labels = {ln.get_label() for ln in payment.get_lines()}
    assert {"orders waiting", "Payment calls running", "Payment's places: 10"} <= labels
    assert {ln.get_label() for ln in inventory.get_lines()} >= {
        "stock checks waiting",
        "Inventory calls running",
    }
    assert max(line(inventory, "stock checks waiting").get_ydata()) == 10
    assert inventory.get_xlabel() == "seconds since the orders were sent"


def test_the_keepalive_figure_puts_three_runs_on_one_axis_and_shades_the_idle_sockets() -> None:
    fig = figures.keepalive_figure(
        fake.healthy(), fake.healthy(keepalive=True), fake.healthy(keepalive=True, rule="node")
    )
    axes = fig.axes
    assert [ax.get_title() for ax in axes] == [
        "no keep-alive (baseline)",
        "keep-alive, aiohttp's pool",
        "keep-alive, Node-like pool",
    ]
    assert len({ax.get_xlim() for ax in axes}) == 1
    node_waits = [p for p in _bars(axes[2], IDLE) if p.get_width() > 4.5]
    assert len(node_waits) == 10  # every stock check waited out the idle sockets
    assert not [p for p in _bars(axes[1], IDLE) if p.get_width() > 1]
    to_png(fig)


def test_the_figures_alt_text_describes_the_figure_not_a_parameter() -> None:
    from bulkhead_lab.book import alt

    for source, from_panel in (("figures.orders_figure(r)", False), ("panel = panels.orders_panel()", True)):
        text = alt.alt_text("fail_fast_queue", source, "5. The bulkhead", from_panel)
        assert text.startswith("The lesson's 20 orders and 10 stock checks on one time axis: above, each")
        assert "xmax" not in text and "axis' end" not in text  # issue 37: the docstring's parameter stays out
