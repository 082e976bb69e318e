"""Notebook 03's widgets: a placement toggle in the learner's words, only the sizes that mean something,
one unit on every progress bar, a status that says whose figure shows while a batch runs or after a stop."""

from __future__ import annotations

import ipywidgets as w
import pytest

from bulkhead_lab.course.pool_placement import panels, views
from bulkhead_lab.live.placement.batch import PlacementResult
from bulkhead_lab.live.sync import Interrupted


def fake_run(calls: list[dict], stop_at: int | None = None):
    """Stands in for a live batch: reports progress as calls come in, returns what the controls asked."""

    def run(placement, notif, cat, skip, *, notification_latency, on_progress):
        calls.append({"placement": placement, "notif": notif, "cat": cat, "skip": skip})
        for done in range(0, 81, 17):
            if stop_at is not None and done >= stop_at:
                on_progress(stop_at, 80)
                seen.append(panel_status())
                raise Interrupted()
            on_progress(done, 80)
            seen.append(panel_status())
        on_progress(80, 80)
        result = PlacementResult(placement, notif, cat, skip, 40, 0, notif + skip, 1, 300.0)
        result.latencies_ms = {"notification": [300.0] * 40, "catalog": [5.0] * 40}
        result.timelines = {"notification": [(0.0, 0), (0.3, notif)], "catalog": [(0.0, 0), (0.3, 1)]}
        return result

    seen: list[str] = []
    panel_status = lambda: built[0].progress.status.value  # noqa: E731
    built: list = []
    return run, seen, built


@pytest.fixture
def live(monkeypatch):
    calls: list[dict] = []
    run, seen, built = fake_run(calls)
    monkeypatch.setattr(views, "run", run)
    panel = panels.placement_panel(draw=False)
    built.append(panel)
    return panel, calls, seen


def test_the_placement_is_a_toggle_in_the_lessons_words() -> None:
    toggle = panels.placement_panel(draw=False).controls["placement"]
    assert isinstance(toggle, w.ToggleButtons)
    assert [label for label, _ in toggle.options] == ["single shared pool", "pool per dependency"]


def test_only_the_pool_sizes_that_mean_something_for_the_placement_are_shown(live) -> None:
    panel, calls, _ = live
    shown = lambda: [k for k in ("shared", "notif", "cat") if panel.controls[k].layout.display != "none"]  # noqa: E731
    assert shown() == ["notif", "cat"]
    panel.set(placement="single", shared=8)
    assert shown() == ["shared"]
    assert panel.controls["shared"].description == "shared pool slots"
    panel.set(cat=5)  # a hidden catalog size does not feed the shared pool: it stays 8
    assert [c["notif"] + c["cat"] for c in calls] == [8, 8]
    panel.set(placement="separate")
    assert shown() == ["notif", "cat"] and (calls[-1]["notif"], calls[-1]["cat"]) == (4, 5)


def test_while_a_batch_runs_the_status_says_the_figure_is_the_previous_runs(live) -> None:
    panel, _, seen = live
    panel.set(skip=2)
    assert not any("previous run's" in s for s in seen)  # nothing shown yet: nothing to mark
    seen.clear()
    panel.set(skip=3)
    assert seen and all(s.endswith("the figure below is still the previous run's") for s in seen)
    assert "51/80" not in panel.progress.status.value
    assert panel.progress.status.value == "done in 300 ms"


def test_an_interrupted_batch_says_where_it_stopped_and_that_the_figure_is_stale(monkeypatch) -> None:
    calls: list[dict] = []
    run, seen, built = fake_run(calls)
    monkeypatch.setattr(views, "run", run)
    panel = panels.placement_panel(draw=False)
    built.append(panel)
    panel.set(skip=1)
    run_stopping, _, built_stopping = fake_run(calls, stop_at=51)
    built_stopping.append(panel)
    monkeypatch.setattr(views, "run", run_stopping)
    with pytest.raises(KeyboardInterrupt):
        panel.set(skip=5)  # Kernel > Interrupt during the batch
    status = panel.progress.status.value
    assert status.startswith(
        "interrupted at 51/80 calls answered; the figure below is still the previous run's"
    )
    assert panel.progress.bar.bar_style == "danger"
    note = panel.output.outputs[0]["text"]  # panel.py's note above the figure says it too
    assert note.startswith("interrupted: the figure below is the previous run's")


def test_a_first_batch_interrupted_says_no_run_finished_yet(monkeypatch) -> None:
    run, _, built = fake_run([], stop_at=17)
    monkeypatch.setattr(views, "run", run)
    panel = panels.placement_panel(draw=False)
    built.append(panel)
    with pytest.raises(KeyboardInterrupt):
        panel.set(skip=1)
    assert panel.progress.status.value.startswith("interrupted at 17/80 calls answered; no run finished yet")


def test_the_rows_bar_and_its_text_count_the_same_unit_calls_answered() -> None:
    progress = panels.CallsProgress([80] * 3)
    assert progress.bar.max == 240
    progress.for_run(0)(80, 80)
    progress.for_run(1)(40, 80)
    assert progress.bar.value == 120
    assert progress.status.value == "120/240 calls answered (1 of 3 batches done, all running together)"
    progress.interrupted(Interrupted().why)
    assert progress.status.value.startswith("interrupted at 120/240 calls answered: the live run was stopped")
    assert progress.bar.bar_style == "danger"


def test_batches_running_together_each_add_their_own_answers_to_one_bar_that_moves_with_its_text() -> None:
    progress = panels.CallsProgress([80] * 3)
    first, second, third = (progress.for_run(i) for i in range(3))
    moved = []
    for done in range(1, 81):  # the three batches answer interleaved, as side by side they do
        for update, answered in ((first, done), (third, min(done, 50)), (second, done // 2)):
            update(answered, 80)
            moved.append((progress.bar.value, progress.status.value.split()[0]))
    assert all(status == f"{value}/240" for value, status in moved)  # after every answer
    assert (progress.bar.value, progress.bar.max) == (80 + 40 + 50, 240)
    assert progress.status.value == "170/240 calls answered (1 of 3 batches done, all running together)"
