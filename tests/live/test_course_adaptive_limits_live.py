"""Notebook 05's section 6 on real sockets: the live panel runs one steady load a move, counts its orders
and says whose figure it shows.

Its opening Gradient2 run and every fact it checks are the notebook's cell 49, which nbval compares; its
controls in a browser are tests/e2e's; a Kernel > Interrupt is test_course_fail_fast_queue.py's (the same
run_sync), and test_interrupts.py cancels a steady load at random points.
"""

from __future__ import annotations

import pytest

from bulkhead_lab.course.adaptive_limits import panels, views
from bulkhead_lab.course.ui.panel import PREVIOUS_RUN

pytestmark = pytest.mark.live


def test_each_move_is_one_run_and_the_previous_figure_is_marked_while_it_is_in_flight() -> None:
    panel = panels.live_panel(slow_for=1)
    seen: list[str] = []

    def note(_: object) -> None:  # what the output area says each time the bar moves
        seen.extend(o.get("text", "") for o in panel.output.outputs if o["output_type"] == "stream")

    assert panel.progress is not None
    panel.progress.bar.observe(note, names="value")
    view = panel.set(algorithm="Vegas")
    assert view.algorithm == "Vegas" and view.orders == views.planned(1) == 80 and not view.breaches
    assert PREVIOUS_RUN in seen  # while the Vegas run was in flight, the Gradient2 figure said so
    assert all(o["output_type"] != "stream" for o in panel.output.outputs)  # and not once it ended
    assert [next(iter(o["data"])) for o in panel.output.outputs] == ["image/png", "text/html"]
    frame = views.live_table(view)
    assert frame["orders sent"].sum() == 80 and frame["orders refused"].sum() == view.refused
    bar = panel.progress.bar
    assert bar.value == bar.max == 80 and panel.progress.status.value.startswith("done: ")
    with pytest.raises(ValueError, match="slider must be one of"):
        panel.set(bogus=1)
