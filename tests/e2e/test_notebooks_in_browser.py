"""Every notebook, as a learner uses it: real JupyterLab, real Chromium, Run All, then move the sliders.

For each ``notebooks/*.ipynb``: open it with a fresh workspace, Run > Run All Cells, wait for the kernel
to go idle, and require that no cell shows an error or anything on stderr. Then, for each slider move
listed in :data:`MOVES`, focus the slider's handle, press arrow keys, wait for the redraw, and require
that the figure and the table changed and that the table moved the way the lesson says (each move's
facts, written as data in :data:`MOVES` with :mod:`move_facts`). Screenshots
before and after each move land in ``test-artifacts/screenshots/<notebook>/``.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lab_driver as ld
import pytest
import writes
from move_facts import NOW, WAS, Fact, Row, Seen, every, row, rows, value

from bulkhead_lab.pool.params import split_label

pytestmark = pytest.mark.e2e

NOTEBOOKS = sorted(p.name for p in (ld.REPO / "notebooks").glob("*.ipynb"))


@dataclass(frozen=True)
class Move:
    """One control a learner moves, and what the lesson says the redraw must show (:mod:`move_facts`)."""

    panel: str  # bl-panel-<panel>; its output area, bl-view-<panel>, is what the control redraws
    slider: str  # bl-slider-<slider>, inside the panel
    key: str  # ArrowLeft / ArrowRight, pressed ``presses`` times on the slider's handle;
    # or "click:<text>": click the toggle button that reads <text> (a ToggleButtons control)
    presses: int
    lesson: str  # what the move should show, in the lesson's words
    must: tuple[Fact, ...]  # ... as facts about the table and the readout, before and after
    shown: tuple[str, ...] = ()  # bl-slider-<name>s in the panel that must be visible after the move
    hidden: tuple[str, ...] = ()  # ... and those that must not be
    # A live panel: a move within a burst redraws from a timer, with the kernel's indicator idle, so the
    # redraw has settled only when the panel's status (bl-status-<panel>) says "done" and the note above
    # its figure ("a live run is in flight ...") has gone with the new figure.
    live: bool = False
    # A live move of several presses: the kernel may get the last press only after the first press's run
    # ended (ipywidgets holds a move back while the kernel is busy), and between those two runs the panel
    # is done, idle and unchanged. So the redraw has settled only once it shows the slider's last value.
    shows: Fact | None = None

    @property
    def id(self) -> str:
        return f"{self.panel}-{self.slider}"


# ----------------------------------------------------------------------------- what each lesson says

SINGLE, WALL = "single pool (32)", "24/8"  # the single pool and lesson 000's bulkhead, beside each other
FIRST = row(0)


def split(layout: str) -> Row:
    """Notebook 02's trade-off table: the row of one layout ('24/8', 'single pool (32)'; '{}': the marked
    split, which gets its own row)."""
    return row({"pool split": layout})


def layout(name: str) -> Row:
    """The row of one layout (05, 06's storm, 08)."""
    return row(layout=name)


def behind_the_wall_tracking_drops_as_on_a_healthy_day(by: Callable[[str], Row]) -> tuple[Fact, ...]:
    """A longer slowdown: the single pool's tracking flow, which did nothing wrong, drops more; behind 24/8
    it drops exactly what it drops on a healthy day, however long the slowdown lasts (02 and 05)."""
    return (
        NOW > WAS,
        by(SINGLE)["slowdown tracking dropped"].rises,
        by(WALL)["slowdown tracking dropped"].after == by(WALL)["healthy tracking dropped"].after,
        by(WALL)["slowdown event dropped"].rises,
    )


POOL_SIZE, HOLD = value("pool size (slots)"), value("hold (s)")  # 01's (name, value) table
BLOCKING, IN_FLIGHT = value("Erlang-B blocking"), value("in flight (Little's Law)")
SUGGESTED = row({"": "suggested limit*"})
TRACKING_POOL, EVENT_POOL = row(pool="tracking pool (*"), row(pool="event pool (*")  # 02's step-through
AIMD = layout("AIMD*")  # 05's explore table: AIMD's own row
SLOW_PHASE = row(phase="slow, to its last slow call")  # 05's live table, by phase
REFUSED_ONLY_WHILE_SLOW = tuple(
    row(phase=p)["orders refused"].after == 0 for p in ("healthy", "healthy again")
)
WALL_SLOW, WALL_CALM = row(layout=WALL, day="slowdown"), row(layout=WALL, day="healthy")  # 06's retries
SINGLE_SLOW = row(layout=SINGLE, day="slowdown")
RECOVER, WASTED, NEVER = value("rounds to recover"), value("wasted after it"), "never in the run"  # 07
EVERY_WORKER = row({"workers shared": "2 of 2 (every worker)"})  # 08's shards
BREAKER = layout("single pool + breaker")  # 08's breaker
CHOSEN = row(1)  # 09: the chosen stop, between the single pool (row 0) and 24/8 (row 2)

MOVES: dict[str, tuple[Move, ...]] = {
    "01_littles_law_sizing.ipynb": (
        Move("littles-law", "pool-size", "ArrowRight", 3,
             "a bigger pool blocks less (Erlang-B and the seeded model agree)",
             (POOL_SIZE.after == POOL_SIZE.before + 3, POOL_SIZE.after == NOW.n, BLOCKING.falls,
              value("seeded model drop rate").falls,
              IN_FLIGHT.stays)),  # Little's Law does not depend on the pool: the same calls are in flight
        Move("littles-law", "hold", "ArrowRight", 2,
             "a longer hold keeps more calls in flight and blocks more",
             (HOLD.after == NOW.n, HOLD.rises, IN_FLIGHT.rises, BLOCKING.rises)),
        Move("littles-law", "headroom", "ArrowRight", 2,
             "a higher target headroom moves the suggested limit on the figure",
             (NOW > WAS, SUGGESTED[""].after == NOW.n.format("suggested limit (headroom {:g}x)"),
              SUGGESTED[""].after != SUGGESTED[""].before, SUGGESTED["value"].rises,
              # The pool itself, and what it refuses, did not change: only the suggestion (and its line).
              BLOCKING.stays)),
    ),
    "02_single_pool_vs_bulkhead.ipynb": (
        Move("tradeoff", "split", "ArrowLeft", 2,
             "a larger event pool (smaller split) drops fewer events on a healthy day",
             (NOW.part(1) > WAS.part(1), split("{}")["healthy event dropped"].falls,
              # ... and the tracking pool that gave up the slots drops more: the bulkhead's cost.
              split("{}")["healthy tracking dropped"].rises,
              split(SINGLE).stays)),  # the single pool does not depend on the split
        Move("tradeoff", "slowdown-hold", "ArrowRight", 4,
             "a longer slowdown hurts tracking in the single pool, never behind the bulkhead",
             behind_the_wall_tracking_drops_as_on_a_healthy_day(split)),
        Move("tradeoff", "event-hold", "ArrowRight", 2,
             "longer event holds cost tracking drops in the single pool only",
             (NOW > WAS, split(WALL)["healthy event dropped"].rises,
              split(WALL)["healthy tracking dropped"].stays,  # behind the bulkhead tracking does not notice
              split(SINGLE)["healthy tracking dropped"].rises)),  # in the shared pool the slots are gone
        Move("step-through", "split", "ArrowRight", 2,
             "a bigger tracking pool: each compartment holds its own flow, the single pool unchanged",
             (NOW.part(0) > WAS.part(0), TRACKING_POOL["slots"].after == NOW.part(0),
              EVENT_POOL["slots"].after + NOW.part(0) == 32,  # the two share the 32 slots
              TRACKING_POOL["event"].after == 0, EVENT_POOL["tracking"].after == 0,
              row(pool="single pool (*").stays)),
    ),
    "03_pool_placement.ipynb": (
        # Run All leaves the panel where section 7's text says it opens: section 3's pool per dependency,
        # notification at its pool's limit, 4 / 4, no call site skipped (its catalog done before is that
        # batch's race against the clock, run beside the others while the lab is busy; the cell below it
        # drives a panel of its own).
        Move("placement", "skipped", "ArrowRight", 2,
             "skipped call sites push the notification peak past the pool's limit, by exactly their number",
             (FIRST["placement"].before == "pool per dependency", FIRST["slots"].before == "4 / 4",
              FIRST["notification peak"].before == 4, FIRST["skipped"].after == NOW.n, FIRST["skipped"].rises,
              # The pool says its slot count; the dependency sees more, and more with each skipped call site.
              FIRST["notification peak"].rises,
              FIRST["notification peak"].after == FIRST["slots"].after.part(0) + NOW),
             live=True, shows=FIRST["skipped"].after == NOW),
        Move("placement", "placement", "click:single shared pool", 1,
             "back to one shared pool: catalog finishes nothing before the first slow answer",
             (WAS == "pool per dependency", NOW == "single shared pool",
              FIRST["catalog done before"].before == "40 / 40",
              FIRST["catalog done before"].after == "0 / 40", FIRST["slots"].after == "8 shared"),
             shown=("shared-slots",), hidden=("notification-slots", "catalog-slots"), live=True),
        Move("placement", "shared-slots", "ArrowRight", 1,
             "under the shared pool one slider sizes the one pool, and the slow stream takes it all",
             (NOW == WAS + 1, FIRST["slots"].after == NOW.format("{} shared"),
              # The slow stream takes every shared slot (plus its skipped call sites); catalog finds none.
              FIRST["notification peak"].after == NOW + FIRST["skipped"].after,
              FIRST["catalog done before"].after == "0 / 40"),
             live=True),
    ),
    "04_fail_fast_queue.ipynb": (
        # Run All leaves the panel where section 9's text says it opens: the lesson's bulkhead, 5 running +
        # 5 waiting, Payment slow at 1 s (the cell below it drives a panel of its own).
        Move("orders", "queue", "ArrowRight", 2,
             "a larger bulkhead queue refuses fewer orders",
             (NOW > WAS, FIRST["orders refused"].falls, FIRST["orders served"].rises,
              # The queue only waits: the limit, not the queue, decides how many calls Payment sees at once.
              FIRST["Payment peak"].stays),
             shown=("limit", "queue"), hidden=("pool", "pool-rule"), live=True,
             shows=FIRST["run"].after.contains(NOW.format("+{})"))),
        Move("orders", "variant", "click:one shared pool", 1,
             "one shared pool: nothing refused, slow Payment takes the whole pool, stock checks wait",
             (NOW == "one shared pool", WAS != "one shared pool",
              FIRST["run"].after.startswith("this run: shared (pool 10"),
              # No bulkhead: nothing is refused, and the slow Payment holds the whole pool ...
              FIRST["orders refused"].after == 0, FIRST["rejected (bulkhead)"].after == "-",
              FIRST["Payment peak"].after == 10,
              # ... so the healthy stock checks wait for slow calls to end: slower than behind the bulkhead.
              FIRST["stock checks"].rises),
             shown=("pool", "pool-rule"), hidden=("limit", "queue"), live=True),
        Move("orders", "variant", "click:a pool per dependency", 1,
             "a pool per dependency: Payment held to its own pool, stock checks fast again",
             (WAS == "one shared pool", NOW == "a pool per dependency",
              # Payment is held to its own pool (the panel's limit, as connections), nothing refused.
              FIRST["Payment peak"].after
              == FIRST["run"].after.group(r"this run: separate \(pools (\d+)\+(\d+)\)"),
              FIRST["orders refused"].after == 0, FIRST["stock checks"].falls),
             shown=("limit",), hidden=("pool", "pool-rule", "queue"), live=True),
    ),
    "05_adaptive_limits.ipynb": (
        Move("explore", "slowdown-length", "ArrowRight", 10,
             "a longer slowdown costs the single pool's tracking flow more, never the one behind 24/8",
             behind_the_wall_tracking_drops_as_on_a_healthy_day(layout)),
        Move("explore", "algorithm", "ArrowLeft", 2,
             "another algorithm redraws its own row; one pool and 24/8 stay as they were",
             (NOW != WAS, rows().after == 3, rows(layout="{}, *").after == 1,  # the walls and its own row
              layout(SINGLE).stays, layout(WALL).stays)),
        Move("explore", "aimd-timeout", "ArrowLeft", 28,
             "an AIMD timeout under the slow calls' hold backs the event limit off, beating 24/8 on tracking",
             (NOW < WAS,
              # Slow calls now exceed the timeout: the event limit backs off, tracking drops fewer than
              # behind 24/8 ...
              AIMD["slowdown tracking dropped"].after < layout(WALL)["slowdown tracking dropped"].after,
              AIMD["slowdown event dropped"].rises,
              AIMD["healthy tracking dropped"].stays)),  # ... while no normal call does: healthy the same
        Move("drift", "drift-tolerance", "ArrowRight", 5,
             "a larger tolerance lets Gradient2's limit fall less and climb back sooner",
             (NOW > WAS, value("back at 28 at round").falls, value("event limit, lowest").rises,
              value("tracking dropped in the slowdown, Gradient2").rises)),
        Move("slow-start", "vegas-initial", "ArrowRight", 3,
             "a higher initial limit reaches the compartment sooner without slow start, once a second",
             (NOW > WAS, row({"updates": "once a second (WindowedLimit)", "slow start": "off"})
              ["reaches 24 at round"].falls)),
        # Run All leaves the live panel at Gradient2, Payment slow for 3 s; each move is one live run.
        Move("live", "live-algorithm", "click:Vegas", 1,
             "Vegas' limit too falls while Payment is slow, and it refuses orders only then",
             (WAS == "Gradient2", NOW == "Vegas",
              # The slow calls pull its limit down, and it refuses orders only while Payment is slow.
              SLOW_PHASE["lowest limit"].after < SLOW_PHASE["limit at its start"].after,
              SLOW_PHASE["orders refused"].after > 0, *REFUSED_ONLY_WHILE_SLOW),
             live=True),
        Move("live", "live-slow-for", "ArrowRight", 1,
             "a longer slowdown: more orders meet the slow Payment, still refused only while it is slow",
             (NOW == WAS + 1, SLOW_PHASE["orders sent"].rises,  # one more second at 20 a second
              SLOW_PHASE["lowest limit"].after < SLOW_PHASE["limit at its start"].after,
              *REFUSED_ONLY_WHILE_SLOW),
             live=True),
    ),
    "06_retries_and_budgets.ipynb": (
        # Run All leaves the panel at section 4's last cell: no jitter, the SRE 10% kept per flow.
        Move("retries", "budget-scope", "ArrowRight", 1,
             "one budget for both flows lets the event storm deny tracking's retries under 24/8",
             (WAS == "each flow", NOW == "both flows",
              WALL_SLOW["tracking gave up"].rises,  # the events spend its budget ...
              WALL_CALM["event gave up"].falls)),  # ... and share it on a healthy day
        Move("retries", "budget", "ArrowLeft", 2,
             "without a budget the load grows, and under 24/8 only in the event compartment",
             (WAS == "10% (SRE)", NOW == "none", SINGLE_SLOW["calls/request"].rises,
              WALL_SLOW["event calls/request"].rises,
              # Nothing left to share: behind the bulkhead tracking gives up what it does on a healthy day.
              WALL_SLOW["tracking gave up"].after == WALL_CALM["tracking gave up"].after)),
        Move("retries", "attempts", "ArrowLeft", 2,
             "one attempt: no retries, lesson 000's drops",
             (NOW == 1, WAS > 1, every("calls/request").after == 1,
              WALL_SLOW["tracking gave up"].after == "172",  # lesson 000's 24/8
              WALL_CALM["tracking gave up"].after == "172", SINGLE_SLOW["tracking gave up"].after == "2654")),
        Move("storm", "budget", "ArrowRight", 2,
             "with a budget the load is back as soon as the slowdown ends",
             (WAS == "none", NOW == "10% (SRE)",
              *(layout(name)["every flow back after"].before > 0 for name in (SINGLE, WALL)),
              *(layout(name)["every flow back after"].after == 0 for name in (SINGLE, WALL)))),
    ),
    "07_timeouts_and_queues.ipynb": (
        # Run All leaves the panel at section 3's last cell: CoDel-like timeout, no queue bound, timeout 30,
        # 3 attempts.
        Move("storm", "fix", "ArrowLeft", 4,
             "with no fix the storm outlives the slowdown to the end of the run",
             (WAS == "CoDel-like timeout", NOW == "no fix", RECOVER.before >= 0, RECOVER.after == NEVER,
              WASTED.after > 0, WASTED.before == 0)),
        Move("storm", "queue-bound", "ArrowRight", 3,
             "a queue of 20 drains inside the timeout: the storm ends",
             (WAS == "no bound", NOW == "20", RECOVER.before == NEVER,
              RECOVER.after <= 30,  # a timeout's worth of rounds
              value("longest queue").after <= 20)),
        Move("storm", "timeout", "ArrowLeft", 3,
             "a 15-round timeout is shorter than that queue's wait: the storm stays",
             (WAS == "30", NOW == "15", RECOVER.before <= 30, RECOVER.after == NEVER)),
        Move("storm", "attempts", "ArrowLeft", 2,
             "one attempt: no retries feed it, the backlog drains",
             (WAS == "3", NOW == "1", RECOVER.before == NEVER, RECOVER.after >= 0)),
    ),
    "08_choosing_compartments.ipynb": (
        Move("cost", "target", "ArrowLeft", 1,
             "a stricter target needs more slots apart and together",
             (NOW < WAS, row(pool="both pools apart")["slots"].rises,
              row(pool="one pool, together")["slots"].rises)),
        Move("shards", "workers", "ArrowRight", 8,
             "more workers make many more pairs: far fewer tenants lose every worker than with plain pairs",
             (NOW > WAS, EVERY_WORKER["shuffle: formula %"].falls,
              # plain pairs: one shard in workers / 2; the shuffled pairs fall far further (1 in
              # C(workers, 2))
              EVERY_WORKER["plain: formula %"].after == 100 * 2 / NOW,
              EVERY_WORKER["shuffle: formula %"].after < EVERY_WORKER["plain: formula %"].after / 10)),
        Move("breaker", "slow-call", "ArrowRight", 12,
             "a breaker that cannot call the slow events slow never opens: only the wall protects",
             (NOW > WAS, BREAKER["times opened"].after == 0, BREAKER["times opened"].before > 0,
              BREAKER["tracking dropped"].after == layout("single pool")["tracking dropped"].after,
              layout("24/8 + breaker")["tracking dropped"].after == layout(WALL)["tracking dropped"].after)),
    ),
    "09_sharing_compartments.ipynb": (
        Move("soft", "share", "ArrowLeft", 2,
             "less reserved: the slow events borrow more, and tracking drops more on the slowdown day",
             (NOW < WAS, CHOSEN["slowdown: tracking dropped"].rises, CHOSEN["slowdown: event dropped"].falls,
              row(0).stays, row(2).stays)),  # the lesson's two
        Move("shed", "keep", "ArrowRight", 2,
             "more slots kept for tracking: fewer tracking drops when events slow, more events shed",
             (NOW == WAS + 2, CHOSEN["healthy: event dropped"].rises,
              CHOSEN["slowdown: tracking dropped"].falls)),
    ),
}  # fmt: skip


# ----------------------------------------------------------------------------- after the moves


def _interrupt_a_placement_batch(page: Any, screenshots: Path) -> None:
    """Notebook 03: start a long live batch, Kernel > Interrupt it, and read what the panel says.

    One drag is one value, so the batch runs in the move's own message handler, where the
    kernel takes an interrupt (1000 ms calls through the shared pool: about five seconds).
    """
    status, view = ".bl-panel-placement .bl-status-placement", ".bl-panel-placement .bl-view-placement"
    ld.drag_slider(page, "slowdown-latency", 400, "placement")
    answered = "calls answered; the figure below is still the previous run's"
    ld.wait_for_text(page, status, "text.includes(want)", answered)
    assert (
        "a live run is in flight: the figure below is the previous run's" in page.locator(view).inner_text()
    )
    ld.screenshot(page, "placement", screenshots / "placement-in-flight.png")
    page.get_by_role("menuitem", name="Kernel", exact=True).click()
    page.get_by_role("menuitem", name=re.compile(r"^Interrupt Kernel")).click()  # its name ends in "I, I"
    ld.wait_for_text(page, status, "text.trim().startsWith('interrupted at')")
    said = page.locator(status).inner_text()
    assert answered in said, said
    assert "interrupted: the figure below is the previous run's" in page.locator(view).inner_text()
    ld.screenshot(page, "placement", screenshots / "placement-interrupted.png")


def _check_the_capstone_live(page: Any, screenshots: Path) -> None:
    """Notebook 10: exercise 3's Check runs the capstone live with section 6's right stack, typed by name;
    the bar under its box counts the run's requests to the end and the line says Right (its counts are a
    live run's, so only its kind is read here; _every_line_shows_whole measures it)."""
    box = page.locator(".bl-answer-3 input").first
    box.scroll_into_view_if_needed()
    box.fill("right_stack")
    box.press("Enter")  # then Check, as a learner does: the exercise runs the capstone once for both
    page.locator(".bl-check-3").first.click()
    ld.wait_for_text(page, ".bl-feedback-3", "/^(Right|Not yet):/.test(text.trim())", timeout_ms=90_000)
    said = page.locator(".bl-feedback-3").first.inner_text().strip()
    assert said.startswith("Right: with Payment slowed by 3 s"), said
    status = page.locator(".bl-status-exercise-3").first.inner_text().strip()
    assert status.startswith("done: 200 requests sent in "), status
    cell = page.locator(".jp-Cell", has=page.locator(".bl-exercise-3")).last
    cell.screenshot(path=str(screenshots / "exercise-3-live.png"))


AFTER_MOVES: dict[str, Callable[[Any, Path], None]] = {
    "03_pool_placement.ipynb": _interrupt_a_placement_batch,
    "10_your_own_stack.ipynb": _check_the_capstone_live,
}


# ----------------------------------------------------------------------------- exercises, as typed


# The exercises a learner answers by typing a value, per notebook (04's 4 and 10's 2 take a class:
# _write_it_yourself types one; 08's 2 and 5 take names; 10's 3 a stack's name: _check_the_capstone_live).
TYPED_ANSWERS = {
    "01_littles_law_sizing.ipynb": (1, 2, 3),
    "02_single_pool_vs_bulkhead.ipynb": (1, 2, 3),
    "03_pool_placement.ipynb": (1, 2, 3),
    "04_fail_fast_queue.ipynb": (1, 2, 3),
    "05_adaptive_limits.ipynb": (1, 2),
    "06_retries_and_budgets.ipynb": (1, 2),
    "07_timeouts_and_queues.ipynb": (1, 2, 3),
    "08_choosing_compartments.ipynb": (1, 3, 4),
    "09_sharing_compartments.ipynb": (1, 2),
    "10_your_own_stack.ipynb": (1,),
}
# How a learner types a right answer that is not a number: the exercise's own right() in words.
AS_TYPED: dict[tuple[str, int], Callable[[Any], str]] = {
    ("02_single_pool_vs_bulkhead.ipynb", 2): split_label,  # None: the single pool
    ("07_timeouts_and_queues.ipynb", 1): lambda design: "{}, {}".format(*design),
    ("07_timeouts_and_queues.ipynb", 2): lambda ends: "yes" if ends else "no",
    ("09_sharing_compartments.ipynb", 1): "{}/8".format,
}


# What a learner types, and how the line under the box must begin: a wrong answer, nonsense, the right one.
TYPED = (("-7", "Not yet:"), ("21/11 or so", "Not yet:"), ("banana", "Not yet: I could not find a number"))
# An exercise whose answer is no number says so its own way (a prediction, yes or no).
NOT_A_NUMBER = {("07_timeouts_and_queues.ipynb", 2): "Not yet: this asks for a prediction"}


def _exercise(notebook: str, number: int) -> Any:
    """The package's own exercise behind a notebook's answer box ``number``."""
    module = importlib.import_module(f"bulkhead_lab.course.{notebook[3:-6]}.exercises")
    return getattr(module, f"exercise_{number}")


def _type_and_check(page: Any, number: int, typed: str, line: str, tries: int = 3) -> None:
    """Type ``typed`` into exercise ``number``'s box, press Enter and Check, as a learner does, until
    the feedback line is exactly ``line`` (the package's own verdict).

    A learner whose Check did nothing clicks again: under CI load a click can land while the worked
    answer revealed just above still moves the page (01's exercise 2 waited 60 s for a verdict after
    exercise 1's table was shown). Each try waits 20 s; the verdict must still be exactly ``line``.
    """
    box = page.locator(f".bl-answer-{number} input").first
    for attempt in range(1, tries + 1):
        box.scroll_into_view_if_needed()
        box.fill(typed)
        box.press("Enter")  # the box checks on Enter too (its value is sent when it changes)
        try:
            _check_exercise(page, number, line, timeout_ms=20_000)
            return
        except Exception:  # playwright's TimeoutError; the last try's propagates
            if attempt == tries:
                shown = page.locator(f".bl-feedback-{number}").first.inner_text().strip()
                said = f"exercise {number} answered {typed!r}: shows {shown!r}, not {line!r}"
                raise AssertionError(said) from None


def _answer_exercises(page: Any, notebook: str, screenshots: Path) -> None:
    for number in TYPED_ANSWERS.get(notebook, ()):
        exercise = _exercise(notebook, number)
        # The right answer as a learner types it, computed by the package (never written here).
        right = AS_TYPED.get((notebook, number), "{:g}".format)(exercise.right())
        typed_here = [(t, NOT_A_NUMBER.get((notebook, number), s) if t == "banana" else s) for t, s in TYPED]
        for typed, start in (*typed_here, (right, "Right:")):
            line = exercise.check(typed).message  # the package's own verdict on what was typed
            if line.startswith("Right:"):  # a "wrong" answer typed may be right here (21/11 is 02's first)
                start = "Right:"
            # The box must show that line exactly: waiting for it, not a prefix, never mistakes the previous
            # answer's line for it (reading the box again after raced a late echo of the previous answer).
            _type_and_check(page, number, typed, line)
            assert line.startswith(start) and "\n" not in line and "Traceback" not in line, (
                f"exercise {number} answered {typed!r}: {line}"
            )
        shown = page.locator(f".bl-answer-shown-{number}").first
        assert shown.inner_text().strip() == "", (
            f"exercise {number}'s answer was shown before it was asked for"
        )
        page.locator(f".bl-show-answer-{number}").first.click()
        ld.wait_for_text(page, f".bl-answer-shown-{number}", "text.includes(want)", right)
        cell = page.locator(".jp-Cell", has=page.locator(f".bl-exercise-{number}")).last
        cell.screenshot(path=str(screenshots / f"exercise-{number}.png"))


def _check_exercise(page: Any, number: int, said: str, timeout_ms: int = 60_000) -> None:
    """Click exercise ``number``'s Check and wait until its feedback line reads exactly ``said``."""
    page.locator(f".bl-check-{number}").first.click()
    ld.wait_for_text(page, f".bl-feedback-{number}", "text.trim() === want", said, timeout_ms)


def _code_cell_holding(notebook: str, source: str) -> int:
    """The index among ``notebook``'s code cells of the one that begins with ``source``."""
    cells = json.loads((ld.REPO / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    return next(i for i, text in enumerate(code) if text.startswith(source))


def _type_into_cell(page: Any, at: int, source: str) -> None:
    """Replace code cell ``at``'s source with ``source`` (as pasted: no auto-indent) and run it."""
    cell = page.locator(".jp-CodeCell").nth(at)
    cell.scroll_into_view_if_needed()
    prompt = cell.locator(".jp-InputPrompt").first
    ran_as = prompt.inner_text().strip()  # [36]: Run All ran the template
    cell.locator(".cm-content").first.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(source)
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(  # the cell ran again: a new execution count, not [*]
        "([el, old]) => { const t = el.innerText.trim(); return /\\[\\d+\\]/.test(t) && t !== old; }",
        arg=[prompt.element_handle(), ran_as],
        timeout=60_000,
    )


def _write_it_yourself(page: Any, notebook: str, screenshots: Path) -> None:
    """The notebook's write-it-yourself exercise (tests/writes): Check the template (Not yet), type the
    first broken candidate into its cell and Check (Not yet), then the first right one (Right); each line
    exactly the package's verdict on the same code."""
    for c in (c for c in writes.all_candidates() if c.notebook == notebook):
        exercise, template = c.judged, writes.template(c)  # the template without its cell's check
        at = _code_cell_holding(notebook, template)
        box = page.locator(f".bl-answer-{c.number} input").first
        box.scroll_into_view_if_needed()
        assert box.input_value() == c.name
        before = exercise.check(writes.define(template, c.name)).message
        assert before.startswith("Not yet:"), before
        _check_exercise(page, c.number, before)
        broken = next(iter(c.broken))
        for source, start in ((broken, "Not yet:"), (c.right, "Right:")):
            _type_into_cell(page, at, source)
            said = exercise.check(writes.define(source, c.name)).message
            assert said.startswith(start), said
            _check_exercise(page, c.number, said)
        page.locator(".jp-Cell", has=page.locator(f".bl-exercise-{c.number}")).last.screenshot(
            path=str(screenshots / f"exercise-{c.number}-written.png")
        )


# Where a learner reads an exercise's lines: the window sizes of a laptop and of a small screen.
READING_SIZES = ({"width": 1400, "height": 900}, {"width": 1024, "height": 768})

# Every feedback and hint line on the page that does not show whole: its text wider than its own box (an
# element that clips: overflow hidden, or no wrap) or running past the exercise's panel or the notebook.
CLIPPED_LINES_JS = """() => {
  const named = (el, prefixes) => [...el.classList].find((c) => prefixes.some((p) => c.startsWith(p)));
  const lines = [...document.querySelectorAll('[class*="bl-feedback-"], [class*="bl-hint-shown-"]')];
  const notebook = document.querySelector('.jp-Notebook') || document.body;
  const right = Math.min(notebook.getBoundingClientRect().right, window.innerWidth);
  const found = [];
  for (const line of lines) {
    const text = line.innerText.trim();
    if (!text) continue;
    const name = named(line, ['bl-feedback-', 'bl-hint-shown-']);
    const panel = line.closest('[class*="bl-exercise-"]') || line.parentElement;
    const edge = Math.min(panel.getBoundingClientRect().right, right);
    const range = document.createRange();
    range.selectNodeContents(line);
    const ink = range.getBoundingClientRect();
    const wide = [line, ...line.querySelectorAll('*')].filter((e) => e.scrollWidth > e.clientWidth + 1);
    if (wide.length || ink.right > edge + 1) {
      found.push(`${name}: text to x=${Math.round(ink.right)} px, box to ${Math.round(edge)} px, `
        + `${wide.length} element(s) scroll wider than shown: "${text.slice(0, 60)}..."`);
    }
  }
  return found;
}"""


def _every_line_shows_whole(page: Any, notebook: str, screenshots: Path) -> None:
    """Open every exercise's hint, then, at each of :data:`READING_SIZES`, find no feedback or hint line
    cut at its box's edge; names the exercise and the size where one is."""
    for hint in page.locator('[class*="bl-hint-"]:not([class*="bl-hint-shown-"])').all():
        if hint.is_enabled():
            hint.scroll_into_view_if_needed()
            hint.click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('[class*=\"bl-hint-shown-\"]')]"
        ".every((e) => e.innerText.trim().startsWith('Hint:'))",
        timeout=30_000,
    )
    try:
        for size in READING_SIZES:
            page.set_viewport_size(size)
            page.wait_for_timeout(500)  # the lab lays its panels out again after a resize
            clipped = page.evaluate(CLIPPED_LINES_JS)
            page.screenshot(path=str(screenshots / f"lines-{size['width']}x{size['height']}.png"))
            assert clipped == [], f"{notebook} at {size['width']}x{size['height']}: lines cut: {clipped}"
    finally:
        page.set_viewport_size(ld.VIEWPORT)


def test_the_clipped_line_finder_finds_a_label_cut_at_its_edge(page: Any) -> None:
    """The measure above finds what learners met: an ipywidgets Label (no wrap, overflow hidden) whose line
    runs past its box; and passes the same line in a box that wraps."""
    page.set_viewport_size(READING_SIZES[1])
    long = "Not yet: " + "a verdict naming the smallest failing case " * 20
    page.set_content(
        '<div class="jp-Notebook" style="width: 900px"><div class="bl-exercise-1" style="width: 600px">'
        f'<div class="bl-feedback-1" style="white-space: nowrap; overflow: hidden">{long}</div>'
        f'<div class="bl-hint-shown-1" style="white-space: normal">Hint: {long}</div></div></div>'
    )
    clipped = page.evaluate(CLIPPED_LINES_JS)
    assert len(clipped) == 1 and clipped[0].startswith("bl-feedback-1:"), clipped


# ----------------------------------------------------------------------------- the test


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_runs_clean_and_its_sliders_redraw_as_the_lesson_says(
    notebook: str, notebooks_lab: ld.Lab, page: Any, screenshots: Path
) -> None:
    writes: list[str] = []  # the browser must never save (rewrite) a committed notebook
    page.on("request", lambda r: writes.append(f"{r.method} {r.url}") if _writes_contents(r) else None)
    script_errors: list[str] = []  # the widgets' JavaScript must not throw or log errors either
    page.on("pageerror", lambda e: script_errors.append(f"uncaught: {e}"))
    page.on("console", lambda m: script_errors.append(f"console: {m.text}") if m.type == "error" else None)
    try:
        ld.open_notebook(page, notebooks_lab, notebook)
        ld.run_all(page)
        page.screenshot(path=str(screenshots / "after-run-all.png"))
        assert ld.error_outputs(page) == [], f"{notebook}: cells show errors or stderr"

        sliders = page.evaluate(
            "() => [...new Set([...document.querySelectorAll('[class*=\"bl-slider-\"]')]"
            ".flatMap((e) => [...e.classList].filter((c) => c.startsWith('bl-slider-'))))]"
        )
        moves = MOVES.get(notebook, ())
        assert moves or not sliders, f"{notebook} has sliders {sliders} but no expected moves in MOVES"
        for move in moves:
            _move_and_check(page, move, screenshots)
        if notebook in AFTER_MOVES:
            AFTER_MOVES[notebook](page, screenshots)
        _answer_exercises(page, notebook, screenshots)
        _write_it_yourself(page, notebook, screenshots)
        _every_line_shows_whole(page, notebook, screenshots)
        assert ld.error_outputs(page) == [], f"{notebook}: slider moves or answers left errors or stderr"
        assert script_errors == [], f"{notebook}: the page reported script errors"
    finally:
        notebooks_lab.shutdown_kernels()
    assert writes == [], f"the browser wrote to the notebooks folder (autosave?): {writes}"


def _writes_contents(request: Any) -> bool:
    # A checkpoint is a copy the lab keeps in the test's own folder (lab_command), not a write
    # to the notebook; every other write through the contents API is.
    url = request.url.split("?")[0]
    if request.method == "POST" and url.endswith("/checkpoints"):
        return False
    return request.method in ("PUT", "PATCH", "POST", "DELETE") and "/api/contents/" in request.url


CLICK = "click:"


def _readout(page: Any, move: Move) -> str:
    """What the control shows: a slider's readout, or a toggle's pressed button."""
    control = ld.slider(page, move.slider, move.panel)
    if move.key.startswith(CLICK):
        return control.locator("button.mod-active").first.inner_text().strip()
    return ld.slider_value(page, move.slider, move.panel)


def _status_done(page: Any, panel: str) -> bool:
    """The live panel's status says done and its figure no longer carries the in-flight note."""
    status = page.locator(f".bl-panel-{panel} .bl-status-{panel}").first.inner_text().strip()
    view = page.locator(f".bl-panel-{panel} .bl-view-{panel}").first.inner_text()
    return status.startswith("done") and "in flight" not in view and "interrupted" not in view


def _move_and_check(page: Any, move: Move, screenshots: Path) -> None:
    """Make ``move`` as a learner does, wait for the redraw, and require every fact in ``move.must``."""
    before = ld.wait_for_view(page, move.panel)
    was = _readout(page, move)
    clicked = move.key.startswith(CLICK)
    shot = f"{move.id}-{move.key.removeprefix(CLICK).replace(' ', '-')}" if clicked else move.id
    ld.screenshot(page, move.panel, screenshots / f"{shot}-before.png")
    if clicked:
        button = ld.slider(page, move.slider, move.panel).get_by_role("button", name=move.key[len(CLICK) :])
        button.scroll_into_view_if_needed()
        button.click()
    else:
        ld.press_slider(page, move.slider, move.key, move.presses, move.panel)
    now = _readout(page, move)

    def done(view: ld.View) -> bool:
        shows = move.shows is None or (
            bool(view.tables) and move.shows.failure(Seen(before, view, was, now)) is None
        )
        return view.complete and _status_done(page, move.panel) and shows

    after = ld.wait_until_settled(page, move.panel, before, complete=done if move.live else None)
    ld.screenshot(page, move.panel, screenshots / f"{shot}-after.png")
    visible = {n: ld.slider(page, n, move.panel).is_visible() for n in (*move.shown, *move.hidden)}
    assert [n for n in move.shown if not visible[n]] == [], f"{move.id}: controls hidden"
    assert [n for n in move.hidden if visible[n]] == [], f"{move.id}: controls still shown"

    assert now != was, f"{move.id}: {move.key} {move.presses} did not move the slider (still {was})"
    assert after.images != before.images, f"{move.id}: the figure did not change"
    assert after.tables != before.tables, f"{move.id}: the table did not change"
    seen = Seen(before, after, was, now)
    failed = [said for said in (fact.failure(seen) for fact in move.must) if said is not None]
    assert failed == [], (
        f"{move.id} ({was} -> {now}) should show: {move.lesson}\n"
        f"before: {before.table()}\nafter: {after.table()}\n" + "\n".join(failed)
    )


def test_a_notebook_opened_before_it_runs_shows_its_saved_sliders_or_says_how_to_get_them(
    notebooks_lab: ld.Lab, page: Any, screenshots: Path
) -> None:
    """Untrusted (opened without the lab command), each widget's place says in one line how to get it;
    trusted (as ``scripts/lab.sh`` opens them), the saved sliders and figures show before any cell runs."""
    notebook = "02_single_pool_vs_bulkhead.ipynb"
    said_js = "() => /[Rr]un this cell/.test(document.querySelector('.jp-Notebook').innerText)"
    try:
        ld.open_notebook(page, notebooks_lab, notebook)
        page.wait_for_function(said_js, timeout=120_000)
        text = page.locator(".jp-Notebook").inner_text()
        page.screenshot(path=str(screenshots / "opened-untrusted.png"))
        assert "VBox(children" not in text and "HBox(children" not in text
        notebooks_lab.shutdown_kernels()

        notebooks_lab.trust(notebook)
        ld.open_notebook(page, notebooks_lab, notebook)
        # The widget manager loads the state saved in the notebook once the kernel is up: poll for it.
        handles = "() => document.querySelectorAll('.jp-OutputArea-output .noUi-handle').length > 0"
        page.wait_for_function(handles, timeout=120_000)
        ld.slider(page, "split").wait_for(timeout=60_000)
        text = page.locator(".jp-Notebook").inner_text()
        page.screenshot(path=str(screenshots / "opened-trusted.png"))
        assert "Error displaying widget" not in text and "VBox(children" not in text
        assert page.locator(".jp-OutputArea-output .widget-output img").count() > 0, "no saved figure"
    finally:
        notebooks_lab.shutdown_kernels()
