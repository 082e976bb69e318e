"""Notebook 04's panel: the variant as buttons in the learner's words, only the controls that apply, units in
the words, one time axis for every variant, a status that says whose figure shows (no sockets here)."""

from __future__ import annotations

import fail_fast_queue_runs as fake
import ipywidgets as w
import pytest

from bulkhead_lab.course.fail_fast_queue import figures, panels, views
from bulkhead_lab.course.ui.panel import STALE
from bulkhead_lab.live.orders.reading import burst
from bulkhead_lab.live.sync import Interrupted


@pytest.fixture
def live(monkeypatch):
    """The panel over a stand-in for the live run: records what each move asked and the axis drawn."""
    calls: list[dict] = []
    axes: list[float] = []
    statuses: list[str] = []
    built: list = []

    def measure(settings, load, *, on_progress):
        s = settings
        calls.append(
            {"variant": s.variant, "pool": s.pool, "limit": s.limit, "queue": s.queue, "rule": s.pool_rule}
        )
        for done in (0, 15, 30):
            on_progress(done, 30)
            if built:
                statuses.append(built[0].progress.status.value)
        if load.slow_latency >= 2.9:
            raise Interrupted()
        return {"shared": fake.shared, "separate": fake.separate, "limited": fake.limited}[s.variant]()

    drawn = figures.orders_figure

    def figure(r, xmax=None):
        axes.append(xmax)
        return drawn(r, xmax=xmax)

    monkeypatch.setattr(views, "measure", measure)
    monkeypatch.setattr(figures, "orders_figure", figure)
    panel = panels.orders_panel(draw=False, slow_latency=0.5)
    built.append(panel)
    return panel, calls, axes, statuses


def _shown(panel) -> list[str]:
    return [k for k in panels.SIZES if panel.controls[k].layout.display != "none"]


def test_the_variant_is_three_buttons_in_the_learners_words() -> None:
    panel = panels.orders_panel(draw=False)
    toggle = panel.controls["variant"]
    assert isinstance(toggle, w.ToggleButtons)
    assert [label for label, _ in toggle.options] == [
        "one shared pool",
        "a pool per dependency",
        "pools + bulkhead (limit, waiting places)",
    ]


def test_every_control_says_what_it_is_in_plain_words_with_units(live) -> None:
    panel = live[0]
    words = {k: c.description for k, c in panel.controls.items()}
    assert words["slow_latency"] == "Payment latency when slow (s)"
    assert words["pool"] == "shared pool (connections)" and words["queue"] == "waiting places"
    panel.set(variant="separate")
    assert panel.controls["limit"].description == "connections per pool"
    panel.set(variant="limited")
    assert panel.controls["limit"].description == "running places (limit)"


def test_only_the_controls_that_apply_to_the_variant_are_shown(live) -> None:
    panel, calls, _, _ = live
    assert _shown(panel) == ["limit", "queue"]
    panel.set(variant="shared")
    assert _shown(panel) == ["pool", "pool_rule"]
    panel.set(variant="separate")
    assert _shown(panel) == ["limit"]
    # The pool rule only reaches a shared pool's run; elsewhere it would change nothing.
    panel.set(variant="shared", pool_rule="node")
    panel.set(variant="limited")
    assert [c["rule"] for c in calls] == ["aiohttp", "aiohttp", "node", "aiohttp"]


def test_switching_the_variant_keeps_the_time_axis(live) -> None:
    panel, _, axes, _ = live
    for variant in ("limited", "shared", "separate"):
        panel.set(variant=variant)
    assert len(set(axes)) == 1 and axes[0] == burst.time_axis(0.5, 10, 5, 5)


def test_the_status_says_whose_figure_shows_while_a_run_is_in_flight_and_after_a_stop(live) -> None:
    panel, _, _, statuses = live
    panel.set(variant="limited")
    assert panel.progress.status.value.startswith("done: 30 answered")
    panel.set(queue=4)
    assert any(s.endswith(STALE) for s in statuses)
    with pytest.raises(Interrupted):
        panel.set(slow_latency=3.0)
    assert panel.progress.status.value == f"interrupted at 30/30 answered; {STALE}"
    texts = [o.get("text", "") for o in panel.output.outputs]
    assert any(t.startswith("interrupted: the figure below is the previous run's") for t in texts)


def test_a_lesson_run_shows_a_bar_that_counts_its_answers(monkeypatch) -> None:
    seen: list[tuple[int, int]] = []

    def run(variant, on_progress=None, **kw):
        for done in (10, 30):
            if on_progress is not None:
                on_progress(done, 30)
                seen.append((done, 30))
        return fake.limited()

    monkeypatch.setattr(views, "run", run)
    assert panels.run("limited").refused == 10 and seen == [(10, 30), (30, 30)]
