"""Every cross-reference in the course points where it says, and every notebook states a time it takes.

A reference is read in the notebooks' markdown and on the start page: "section N" (and "sections 3 and 5",
"sections 3 to 6", "section 5.1", "§N"), "notebook NN, section N", "notebook NN's section N", "notebook NN",
the takeaways' "Next:", and links to ``NN_name.ipynb`` or ``00_start_here.md`` with or without an anchor.
A bare "section N" points into the notebook it is written in; on the start page, into the notebook its
table row links. Each resolves against the headings of the notebook it points to:

* the notebook and every numbered section exist (``## N. Title``, ``### N.M Title``);
* a section the sentence calls live ("section 7 is live", "section 5 starts local services", "section 6's
  live panel") is one: its heading says live, or its own text runs something live and it is not the
  Exercises section (an answer box that goes live when the answer is right does not make the notebook's
  live part);
* a section cited for a topic, "Little's Law (notebook 01, section 2)", is the one whose heading names the
  topic whenever some heading of that notebook does;
* "section N's `name`" names something section N holds; "section N's panel", "cell", "table" or "figure"
  a section that has a code cell (a panel: one that builds a panel);
* "Next:" names the notebook after this one, or the start page after the last;
* a link's file exists, and its anchor is a heading's, spelled as JupyterLab spells it: the heading's text
  with each space a hyphen, case kept (``#7.-Try-it``, ``00_start_here.md#Little's-Law``); the book uses
  the same anchors (``bulkhead_lab/book/anchors.py``).

A failure names each dangling reference: the file, the text around it, what it points to and why.

The second half plans each notebook's time from its text (:func:`planned_minutes`): its words, markdown and
code, at 150 a minute, plus 5 minutes an exercise and 2 a live run (a code cell that shows a live run's
progress bar, a widget of class ``bl-progress-*`` in the saved widget state: every live run and live panel
of the course shows one), and checks the "About N minutes" at the notebook's top against it, within 25%.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bulkhead_lab.book.anchors import jupyterlab_id
from bulkhead_lab.book.widgets import WIDGET_VIEW, model_tree, saved_models

REPO = Path(__file__).resolve().parents[1]
FOLDER = REPO / "notebooks"
START_PAGE = FOLDER / "00_start_here.md"


def _notebook_paths() -> list[Path]:
    return sorted(FOLDER.glob("[0-9][0-9]_*.ipynb"))


# ----------------------------------------------------------------------------- a notebook's headings

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
_NUMBERED = re.compile(r"^(\d+(?:\.\d+)?)\.?\s+(.*)$")
_LIVE_WORD = re.compile(r"\blive\b|127\.0\.0\.1", re.I)
_OTHER_SECTIONS_LIVE = re.compile(r"(?i)\bsections?\s+\d+(?:\.\d+)?'s\s+live\b")


def heading_text(markdown: str) -> str:
    """A heading's text as a browser shows it: code spans, emphasis and link targets gone."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"(\*\*|__|\*|(?<!\w)_)(.+?)\1", r"\2", text)
    return text.strip()


@dataclass
class Section:
    number: str
    title: str
    markdown: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)

    @property
    def live(self) -> bool:
        """Its heading says live, or its own text runs something live and it is not the exercises."""
        if _LIVE_WORD.search(self.title):
            return True
        if re.match(r"exercises\b", self.title, re.I):
            return False
        return any(_LIVE_WORD.search(_OTHER_SECTIONS_LIVE.sub("", text)) for text in self.markdown)

    def holds(self, name: str) -> bool:
        return any(name in text for text in [*self.markdown, *self.code])


@dataclass
class Doc:
    path: Path
    number: str  # "00" for the start page
    sections: dict[str, Section]
    anchors: set[str]
    markdown: list[str]  # each markdown cell (the start page: the whole page)

    @property
    def name(self) -> str:
        return self.path.name


def _cells(path: Path) -> list[tuple[str, str]]:
    if path.suffix == ".md":
        return [("markdown", path.read_text(encoding="utf-8"))]
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(c["cell_type"], "".join(c["source"])) for c in cells]


def load(path: Path) -> Doc:
    """A notebook (or the start page) as its numbered sections and its headings' anchors."""
    sections: dict[str, Section] = {}
    anchors: set[str] = set()
    markdown: list[str] = []
    top: Section | None = None  # the "## N." section text is filed under
    sub: Section | None = None  # and the "### N.M" one, if any
    for kind, text in _cells(path):
        if kind == "code":
            for s in {id(x): x for x in (top, sub) if x is not None}.values():
                s.code.append(text)
            continue
        if kind != "markdown":
            continue
        markdown.append(text)
        bare = _FENCE.sub("", text)
        pieces = [(m.start(), len(m.group(1)), heading_text(m.group(2))) for m in _HEADING.finditer(bare)]
        starts = [p[0] for p in pieces] + [len(bare)]
        if not pieces or pieces[0][0] > 0:  # text before the cell's first heading
            for s in {id(x): x for x in (top, sub) if x is not None}.values():
                s.markdown.append(bare[: starts[0]])
        for (start, level, title), end in zip(pieces, starts[1:], strict=True):
            anchors.add(jupyterlab_id(title))
            numbered = _NUMBERED.match(title)
            if level == 2:
                top = sub = None
                if numbered:
                    top = sections.setdefault(
                        numbered.group(1), Section(numbered.group(1), numbered.group(2))
                    )
            elif level == 3 and numbered and "." in numbered.group(1):
                sub = sections.setdefault(numbered.group(1), Section(numbered.group(1), numbered.group(2)))
            elif level <= 2:
                top = sub = None
            elif level == 3 and top is not None:
                sub = None
            for s in {id(x): x for x in (top, sub) if x is not None}.values():
                s.markdown.append(bare[start:end])
    number = path.name[:2]
    return Doc(path, number, sections, anchors, markdown)


def course() -> dict[str, Doc]:
    """Every notebook by its number, and the start page as "00"."""
    docs = {p.name[:2]: load(p) for p in _notebook_paths()}
    docs["00"] = load(START_PAGE)
    return docs


# ----------------------------------------------------------------------------- references

_NUM = r"\d+(?:\.\d+)?(?![\d.]*\d)"
_SEP = r"(?:,\s*|\s+and\s+|\s+or\s+|\s+to\s+)"
_SECTION_REF = re.compile(
    rf"(?:(?P<qual>[Nn]otebook\s+(?P<nb>\d\d))(?:'s|,)\s+)?"
    rf"(?:[Ss]ections?\s+|§\s?)(?P<secs>{_NUM}(?:{_SEP}{_NUM}(?=\W|$))*)"
)
_NOTEBOOK_REF = re.compile(r"\b[Nn]otebooks?\s+(?P<nbs>\d\d(?:(?:,\s*|\s+and\s+|\s+or\s+)\d\d)*)\b")
_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
_LIVE_CLAIM = re.compile(
    r"^(?:'s)?\s*(?:is live|runs? (?:\w+ )?live|starts? local services|live\b|"
    r"[^.]*?\b(?:are|is) live\b)"
)
_CLAUSE = re.compile(r"(?:^|[.;:!?|]\s|\n\s*\n|^#+ .*\n)(?P<clause>[^.;:!?|]*?)\s*\((?:see\s+)?$", re.S)
_POSSESSIVE = re.compile(r"^'s\s+(?:`(?P<code>[^`]+)`|(?P<thing>panel|sliders?|cell|table|figure)s?\b)")
_STOP = {"the", "a", "an", "of", "in", "on", "at", "to", "and", "or", "its", "their", "this", "that", "is"}


@dataclass(frozen=True)
class Dangling:
    file: str
    around: str
    points_to: str
    why: str

    def __str__(self) -> str:
        return f"{self.file}: «{self.around}» -> {self.points_to}: {self.why}"


def _around(text: str, start: int, end: int, width: int = 50) -> str:
    snippet = text[max(0, start - width) : end + width]
    return " ".join(snippet.split())


def _sentence_tail(text: str, end: int) -> str:
    tail = text[end:]
    stop = re.search(r"(?<![.\d])[.;:!?](?:\s|$)|\n\s*\n|\|", tail)
    return tail[: stop.start()] if stop else tail


def _numbers(secs: str) -> list[str]:
    """``3 to 6`` is 3, 4, 5, 6; ``3 and 5`` is 3 and 5."""
    parts = re.split(rf"({_SEP})", secs)
    nums: list[str] = []
    for i in range(0, len(parts), 2):
        n = parts[i].strip()
        if i and parts[i - 1].strip() == "to" and nums and "." not in n and "." not in nums[-1]:
            nums += [str(k) for k in range(int(nums[-1]) + 1, int(n) + 1)]
        else:
            nums.append(n)
    return nums


def _row_notebook(text: str, at: int) -> str | None:
    """On the start page: the notebook the table row holding ``at`` links."""
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    if not line.startswith("|"):
        return None
    link = re.search(r"\]\((\d\d)_[\w]+\.ipynb\)", line)
    return link.group(1) if link else None


def _topic_matches(topic: str, title: str) -> bool:
    def norm(s: str) -> str:
        return re.sub(r"[^a-z0-9 ]", "", s.lower().replace("’", "'").replace("'", ""))

    return norm(topic) in norm(title)


def _topics(before: str) -> list[str]:
    """What a parenthesised reference is cited for: the last two, then three, words of its clause
    ("Little's Law (notebook 01, section 2)"); none when the reference is not in parentheses."""
    m = _CLAUSE.search(before[-200:])
    if m is None:
        return []
    words = m.group("clause").split()
    found = []
    for n in (2, 3):
        if len(words) >= n and not {w.lower() for w in words[-n:]} <= _STOP:
            found.append(" ".join(words[-n:]))
    return found


def _section_refs(doc: Doc, docs: dict[str, Doc], text: str) -> list[Dangling]:
    found: list[Dangling] = []
    for m in _SECTION_REF.finditer(text):
        around = _around(text, m.start(), m.end())
        nb = m.group("nb") or (_row_notebook(text, m.start()) if doc.number == "00" else doc.number)
        if nb is None or (nb == "00" and doc.number == "00" and not m.group("nb")):
            found.append(Dangling(doc.name, around, f"section {m.group('secs')}", "no notebook named"))
            continue
        target = docs.get(nb)
        if target is None:
            found.append(Dangling(doc.name, around, f"notebook {nb}", "no such notebook"))
            continue
        where = f"{target.name} section"
        nums = _numbers(m.group("secs"))
        missing = [n for n in nums if n not in target.sections]
        if missing:
            found.append(Dangling(doc.name, around, f"{where} {', '.join(missing)}", "no such heading"))
            continue
        tail = _sentence_tail(text, m.end())
        if _LIVE_CLAIM.match(tail):
            for n in nums:
                s = target.sections[n]
                if not s.live:
                    found.append(
                        Dangling(doc.name, around, f"{where} {n} ({s.title})", "called live; it is not")
                    )
        for topic in _topics(text[: m.start()]) if len(nums) == 1 else []:
            cited = target.sections[nums[0]]
            named = [s for s in target.sections.values() if _topic_matches(topic, s.title)]
            if named and cited not in named:
                found.append(
                    Dangling(doc.name, around, f"{where} {nums[0]} ({cited.title})",
                             f"cited for {topic!r}, which is section {named[0].number}'s heading "
                             f"({named[0].title})")
                )  # fmt: skip
                break
        owned = _POSSESSIVE.match(text[m.end() :])
        if owned and len(nums) == 1:
            s = target.sections[nums[0]]
            code, thing = owned.group("code"), owned.group("thing")
            if code is not None:
                name = re.sub(r"\(.*$", "", code).strip()
                if not s.holds(name):
                    found.append(Dangling(doc.name, around, f"{where} {nums[0]} ({s.title})",
                                          f"it holds no `{name}`"))  # fmt: skip
            elif thing in ("panel", "slider", "sliders") and not any("panel" in c for c in s.code):
                found.append(Dangling(doc.name, around, f"{where} {nums[0]} ({s.title})", "it has no panel"))
            elif not s.code:
                found.append(Dangling(doc.name, around, f"{where} {nums[0]} ({s.title})",
                                      f"it has no code cell, so no {thing}"))  # fmt: skip
    return found


def _notebook_refs(doc: Doc, docs: dict[str, Doc], text: str) -> list[Dangling]:
    found = []
    for m in _NOTEBOOK_REF.finditer(text):
        for nb in re.findall(r"\d\d", m.group("nbs")):
            if nb not in docs:
                found.append(Dangling(doc.name, _around(text, m.start(), m.end()), f"notebook {nb}",
                                      "no such notebook"))  # fmt: skip
    return found


def _link_refs(doc: Doc, docs: dict[str, Doc], text: str) -> list[Dangling]:
    found = []
    by_name = {d.name: d for d in docs.values()}
    for m in _LINK.finditer(text):
        target = m.group("target")
        if re.match(r"[a-z]+:", target) or target.startswith("lessons/"):
            continue  # a web address, or a lesson beside the course
        file, _, frag = target.partition("#")
        around = _around(text, m.start(), m.end())
        linked = doc if not file else by_name.get(file)
        if linked is None:
            found.append(Dangling(doc.name, around, file, "no such file in notebooks/"))
        elif frag and frag not in linked.anchors:
            found.append(Dangling(doc.name, around, target, f"no heading of {linked.name} has this anchor"))
    return found


def _next_ref(doc: Doc, docs: dict[str, Doc]) -> list[Dangling]:
    """The takeaways' "Next:" names the notebook after this one, or the start page after the last."""
    if doc.number == "00":
        return []
    later = sorted(n for n in docs if n > doc.number)
    want = later[0] if later else "00"
    found = []
    for text in doc.markdown:
        m = re.search(r"\bNext:\**\s*(?P<what>[^\n]*(?:\n(?!\s*[*-] )[^\n]*)*)", text)
        if not m:
            continue
        what = m.group("what")
        named = re.search(
            r"\((\d\d)_\w+\.(?:ipynb|md)|\b[Nn]otebook\s+(\d\d)\b|(start page|course map)", what
        )
        points = None if named is None else (named.group(1) or named.group(2) or "00")
        if points != want:
            wanted = "the start page" if want == "00" else f"notebook {want}"
            got = (
                "nothing it names"
                if points is None
                else ("the start page" if points == "00" else f"notebook {points}")
            )
            found.append(Dangling(doc.name, _around(text, m.start(), m.end(), 0)[:160], got,
                                  f"Next should be {wanted}"))  # fmt: skip
    return found


def _refs(doc: Doc, docs: dict[str, Doc], text: str) -> list[Dangling]:
    """The sections, notebooks and links ``text`` (one markdown cell of ``doc``) names that do not resolve."""
    return _section_refs(doc, docs, text) + _notebook_refs(doc, docs, text) + _link_refs(doc, docs, text)


def dangling(path: Path, docs: dict[str, Doc] | None = None) -> list[Dangling]:
    """Every cross-reference of ``path`` (a notebook or the start page) that does not resolve."""
    docs = docs if docs is not None else course()
    doc = docs["00"] if path == START_PAGE else load(path)
    found = [d for text in doc.markdown for d in _refs(doc, docs, _FENCE.sub("", text))]
    if doc.number != "00":
        found += _next_ref(doc, docs)
    return found


@pytest.mark.parametrize("path", [START_PAGE, *_notebook_paths()], ids=lambda p: p.name)
def test_every_cross_reference_points_to_the_heading_it_means(path: Path) -> None:
    found = dangling(path)
    assert not found, f"{len(found)} dangling cross-reference(s):\n" + "\n".join(map(str, found))


def test_the_checker_finds_what_the_issue_found() -> None:
    """Issue 37's three: a live part one section off, a topic cited to the section before its own, and a
    Next that skips a notebook; and a section, a notebook, a file and an anchor that do not exist."""
    docs = course()
    page = docs["00"]

    def check(text: str, where: Doc) -> list[str]:
        return [d.why for d in _refs(where, docs, text)]

    n04, n06 = docs["04"], docs["06"]
    assert check("Section 8 is live: its services run on 127.0.0.1.", n06) == ["called live; it is not"]
    assert check("Section 7 is live: its services run on 127.0.0.1.", n06) == []
    assert check("Little's Law (notebook 01, section 1) gives the calls.", n04)[0].startswith(
        'cited for "Little\'s Law"'
    )
    assert check("Little's Law (notebook 01, section 2) gives the calls.", n04) == []
    assert check("## 7. Sizing the limit\n\nLittle's Law (notebook 01, section 1) gives", n04) != []
    assert check("as section 99 shows", n04) == ["no such heading"]
    assert check("as notebook 77 shows", n04) == ["no such notebook"]
    assert check("[x](00_start_here.md#nowhere) [y](99_nothing.ipynb)", n04) == [
        "no heading of 00_start_here.md has this anchor",
        "no such file in notebooks/",
    ]
    assert check("[x](00_start_here.md#Glossary) [y](03_pool_placement.ipynb#7.-Try-it)", n04) == []
    assert check("in notebook 05's section 6, notebook 06's section 8 and notebook 08's sections 3 and 5, "
                 "runs are live", page) == ["called live; it is not"]  # fmt: skip
    skipping = Doc(
        n06.path.with_name("07_x.ipynb"), "07", {}, set(), ["* **Next:** back to the [start page]"]
    )
    assert [d.why for d in _next_ref(skipping, docs)] == ["Next should be notebook 08"]


# ----------------------------------------------------------------------------- times to plan by

WORDS_PER_MINUTE = 150
MINUTES_PER_EXERCISE = 5
MINUTES_PER_LIVE_RUN = 2
TOLERANCE = 0.25
_STATED = re.compile(r"\bAbout (\d+) (?:[^.;*]*?)minutes\b")


@dataclass(frozen=True)
class Plan:
    notebook: str
    words: int
    exercises: int
    live_runs: int
    stated: int | None

    @property
    def minutes(self) -> float:
        return (
            self.words / WORDS_PER_MINUTE
            + self.exercises * MINUTES_PER_EXERCISE
            + self.live_runs * MINUTES_PER_LIVE_RUN
        )

    @property
    def rounded(self) -> int:
        """The minutes to state: to the nearest 5."""
        return int(5 * math.floor(self.minutes / 5 + 0.5))


def _shows_a_live_run(cell: dict, models: dict) -> bool:
    """The cell shows a widget with a live run's progress bar (a ``bl-progress-*`` class) in it."""
    shown = [
        o["data"][WIDGET_VIEW]["model_id"]
        for o in cell.get("outputs", [])
        if WIDGET_VIEW in o.get("data", {})
    ]
    return any(
        c.startswith("bl-progress-")
        for m in shown
        for model in model_tree(models, m)
        if model is not None
        for c in model["state"].get("_dom_classes", [])
    )


def planned_minutes(path: Path) -> Plan:
    """What a learner can plan by: words (markdown and code) at 150 a minute, 5 minutes an exercise (a
    ``### Exercise N`` heading) and 2 a live run (a code cell that shows a live run's progress bar)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook["cells"]
    state = saved_models(notebook)
    words = sum(len("".join(c["source"]).split()) for c in cells if c["cell_type"] in ("markdown", "code"))
    markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    exercises = sum(len(re.findall(r"^### Exercise \d+", text, re.M)) for text in markdown)
    live = sum(1 for c in cells if c["cell_type"] == "code" and _shows_a_live_run(c, state))
    stated = _STATED.search(markdown[0]) if markdown else None  # near the top: in the first markdown cell
    return Plan(path.name, words, exercises, live, int(stated.group(1)) if stated else None)


@pytest.mark.parametrize("path", _notebook_paths(), ids=lambda p: p.name)
def test_each_notebook_states_the_time_its_text_takes_within_a_quarter(path: Path) -> None:
    plan = planned_minutes(path)
    assert plan.stated is not None, "no 'About N minutes' near the top"
    assert abs(plan.stated - plan.minutes) <= TOLERANCE * plan.minutes, (
        f"states about {plan.stated} minutes; its text plans {plan.minutes:.0f} ({plan.words} words at "
        f"{WORDS_PER_MINUTE} a minute, {plan.exercises} exercises at {MINUTES_PER_EXERCISE}, "
        f"{plan.live_runs} live runs at {MINUTES_PER_LIVE_RUN}): say about {plan.rounded} minutes"
    )
