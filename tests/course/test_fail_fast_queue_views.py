"""Notebook 04's numbers: one time axis, the counters over time, the lesson's constants and claims, on
lesson-shaped runs (no sockets; the live tests run real ones). The facts and tables the notebook prints
of its live runs are nbval's to compare."""

from __future__ import annotations

import json
import re
from pathlib import Path

import fail_fast_queue_runs as fake
import pytest

from bulkhead_lab.course.fail_fast_queue import claims as story
from bulkhead_lab.course.fail_fast_queue import views
from bulkhead_lab.live.orders.reading import burst

# --- one time axis ----------------------------------------------------------------------------


def test_the_lessons_three_variants_at_3_s_share_one_axis_past_the_four_waves() -> None:
    assert burst.LESSON_AXIS == 15.0  # a pool each: 4 x 3 s + 0.1 s
    assert burst.time_axis(0.5, 10, 3, 2) >= 7 * 0.5  # a pool of 3: ceil(20 / 3) = 7 rounds
    assert [burst.nice_end(x) for x in (0.7, 1.3, 4.1, 5.08, 12.1)] == [0.8, 1.5, 5.0, 6.0, 15.0]


# --- the counters over time ------------------------------------------------------------------------


def test_the_bulkheads_own_counters_draw_its_queue_and_its_refusals() -> None:
    c = burst.counters(fake.limited())
    assert "bulkhead's own counters" in c.source
    assert max(n for _, n in c.orders_waiting) == 5 and max(n for _, n in c.payment_running) == 5
    assert min(t for t, n in c.refused if n == 10) < 0.01  # all ten at once, at the start
    assert c.limit == 5


def test_without_a_bulkhead_the_waits_come_from_each_answer() -> None:
    c = burst.counters(fake.shared("node"))
    assert "waited_ms" in c.source and c.refused == [(0.0, 0)] and c.limit == 10
    assert max(n for _, n in c.orders_waiting) == 10  # the second round's ten
    assert max(n for _, n in c.stock_waiting) == 10  # every stock check, for both rounds
    # A wait under 10 ms is a connection being set up, not a queue: the separate run's stock checks
    # that waited one 22-ms Inventory call are counted, an instant one would not be.
    assert max(n for _, n in fake.separate().waiting("stock")) == 5


def test_wave_ends_mark_each_slow_wave_a_run_needed() -> None:
    assert burst.wave_ends(fake.separate()) == [3.0, 6.0, 9.0, 12.0]
    assert burst.wave_ends(fake.healthy()) == []


# --- what nbval cannot compare ---------------------------------------------------------------------


def test_check_js_against_a_shared_pool_that_passed_says_no() -> None:
    passed = story.check_claims(fake.limited(), fake.limited())
    assert [c.verdict for c in passed[4:7]] == ["NO"] * 3


def test_the_keepalive_text_is_for_a_shared_pool_run() -> None:
    with pytest.raises(ValueError, match="shared-pool run"):  # a pool each: its claims say it
        burst.keepalive_text(fake.healthy("separate", keepalive=True, rule="node"))


# --- what the story prints of each run (the lesson's claims wait for the appendix) ------------------


def test_the_panels_table_is_this_run_in_the_lessons_measures() -> None:
    table = views.summary_table([fake.limited()], "run", "this run: ")
    assert list(table.index) == ["this run: limited (pools 5+5, bulkhead 5+5), Payment slow (3 s)"]
    assert table.iloc[0]["orders refused"] == 10 and table.iloc[0]["rejected (bulkhead)"] == 10


# Each claim's words (its ``says``) beside the lesson's own words stating its value.
QUOTES = {
    "Payment answers in 20 ms": "answers in 20 ms, or in 3 seconds",
    "... or in 3 s when switched slow": "answers in 20 ms, or in 3 seconds",
    "load.js sends 20 orders at once and 10 stock checks": "20 orders at once and, 100 ms later, 10 stock",
    "... the stock checks 100 ms after the orders": "20 orders at once and, 100 ms later, 10 stock",
    "one Agent for every call, at most 10 connections": "at most 10 connections in total (maxTotalSockets)",
    "Payment healthy: stock checks 27 - 29 ms": "stock checks 27 - 29 ms",
    "Payment slow: the stock checks took about 6 s each": "took about 6 seconds each",
    "Payment slow: Payment's own counter shows 10 calls at once": "shows 10 calls at once",
    "the orders finished in about 60 ms": "finished in about 60 ms",
    "a healthy call made 300 times slower": "300 times slower",
    "Inventory waited until they were closed, about 5 s later": "about 5 seconds later",
    "the stock checks stayed at 38 - 58 ms": "stock checks stayed at 38 - 58 ms",
    "the slowest order waited 12 s": "waited 12 seconds",
    "bulkhead(5, 5): 5 calls run and 5 more wait": "bulkhead(5, 5)",
    "stock checks 30 - 53 ms": "stock checks 30 - 53 ms. 10 orders were served",
    "10 orders were served": "stock checks 30 - 53 ms. 10 orders were served",
    "10 were refused": "10 were refused in 16 ms",
    "... in 16 ms": "10 were refused in 16 ms",
    "/admin/bulkhead: 5 running and 0 free waiting places": "5 running and 0 free waiting places",
    "... with a clear 'busy, try again'": '"busy, try again"',
    "... including a stock check that took 6.2 s": "took 6.2 seconds",
    "set the limit a few times above: say 5 or 6": "say 5 or 6",
    "20 calls/s x 0.1 s: about 2 in progress": "20 calls per second and each takes 0.1 seconds, about 2",
}


def test_each_claims_lesson_value_is_what_lesson_004_says(lesson_text) -> None:
    text = " ".join(lesson_text("004").split())
    claims = {c.says: c for c in story.lesson_claims(_runs())}
    for says, quote in QUOTES.items():
        assert quote in text, quote
        numbers = re.findall(r"\d+(?:\.\d+)?", claims[says].lesson) or [claims[says].lesson]
        assert all(n in quote for n in numbers), (says, claims[says].lesson, quote)


# --- the claims ------------------------------------------------------------------------------------


def _runs(**change: object) -> story.Runs:
    runs = {
        "shared": fake.shared("node"),
        "separate": fake.separate(),
        "limited": fake.limited(),
        "baseline": fake.healthy(),
        "keepalive": fake.healthy(keepalive=True, rule="node"),
        "keepalive_separate": fake.healthy("separate", keepalive=True, rule="node"),
        "small": fake.small(),
        "big": fake.big(),
        "right": fake.right_sized(),
    }
    return story.Runs(**(runs | change))  # type: ignore[arg-type]


def test_a_claim_that_stops_holding_says_no() -> None:
    # aiohttp's random hand-off lets the stock checks in after one round: not the lesson's 6 s.
    claims = story.lesson_claims(_runs(shared=fake.shared("aiohttp")))
    broken = [c for c in claims if c.verdict == "NO"]
    assert [c.says for c in broken] == [
        "Payment slow: the stock checks took about 6 s each",
        "... including a stock check that took 6.2 s",
    ]
    assert story.claims_count(claims).splitlines()[0].split(":")[1].startswith(" 45 of 49")


def test_the_notebooks_takeaways_give_the_count_its_appendix_prints() -> None:
    notebook = Path(__file__).resolve().parents[2] / "notebooks" / "04_fail_fast_queue.ipynb"
    cells = ["".join(c["source"]) for c in json.loads(notebook.read_text())["cells"]]
    takeaways = " ".join(next(text for text in cells if text.startswith("## Key takeaways")).split())
    count = story.claims_count(story.lesson_claims(_runs())).splitlines()[0]
    reproduced, total = re.findall(r"\d+", count.split(":", 1)[1])[:2]
    assert f"Of lesson 004's {total} claims, {reproduced} are reproduced in checked output" in takeaways
