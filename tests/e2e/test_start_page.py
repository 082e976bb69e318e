"""A fresh lab opens on the course map at either address a learner types, and links the lessons."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lab_driver as ld
import pytest


@pytest.mark.parametrize("address", ["", "lab"], ids=["front door", "bare /lab"])
def test_a_fresh_lab_opens_on_the_course_map(
    page: Any, tmp_path: Path, address: str, screenshots: Path
) -> None:
    with ld.running_lab(ld.REPO / "notebooks", tmp_path) as lab:
        page.goto(lab.url(address), timeout=120_000)
        heading = page.locator(".jp-MarkdownViewer .jp-RenderedMarkdown h1").first
        heading.wait_for(timeout=120_000)
        assert heading.inner_text().startswith("00 · Start here")
        assert page.locator(".jp-Launcher").count() == 0, "the Launcher opened beside the course map"
        links = page.locator(".jp-MarkdownViewer .jp-RenderedMarkdown a").all_inner_texts()
        assert {"lesson 000", "lesson 003", "lesson 004"} <= set(links)
        assert any(link.startswith("01 ·") for link in links) and any(
            link.startswith("04 ·") for link in links
        )
        page.screenshot(path=str(screenshots / "start-page.png"))


def test_a_lesson_link_opens_the_lesson_when_the_seeds_are_beside_the_course(
    page: Any, tmp_path: Path, seeds: Path
) -> None:
    with ld.running_lab(ld.REPO / "notebooks", tmp_path) as lab:
        page.goto(lab.url(""), timeout=120_000)
        page.locator(".jp-MarkdownViewer .jp-RenderedMarkdown a", has_text="lesson 004").click()
        page.get_by_text("Order Service, which calls two other services").first.wait_for(timeout=60_000)
