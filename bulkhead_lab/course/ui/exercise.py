"""Exercises every notebook shares: a checker that takes anything, one friendly line back,
and a worked answer that stays hidden until the learner asks for it.

An :class:`Exercise` pairs a *judge* (the notebook's own rule for a right answer, in its
``exercises.py``) with a hint and a worked answer. :meth:`Exercise.check` takes whatever a
learner types (``None``, ``''``, ``0``, ``'21/11'``, ``-3``, ``'eleven'``, a float, a list)
and answers in one line: ``Right: ...``, ``Not yet: ... Hint: ...`` or ``No answer yet.
Hint: ...`` -- never a traceback. Displayed in a notebook, an exercise is an answer box,
a *Check* button and a *Show answer* button; the worked answer is computed only when
that button is pressed, so Run All prints no answer and no "Right:" line.

The readers (:func:`read_number`, :func:`read_whole`, :func:`read_split`) turn typed text
into the number a judge compares, or raise :class:`NotUnderstood` with a friendly reason.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from numbers import Real
from typing import Any

import ipywidgets as w
from IPython.display import Markdown, display

from bulkhead_lab.course.ui.panel import display_widget
from bulkhead_lab.pool.model import TOTAL

_NUMBER = re.compile(r"^[^\d+\-.]*([-+]?(?:\d[\d,_]*)?\.?\d+(?:[eE][-+]?\d+)?)\s*(%?)")
_SINGLE_WORDS = (
    "single",
    "single pool",
    "one pool",
    "shared",
    "shared pool",
    "none",
    "no split",
    "no bulkhead",
)


@dataclass(frozen=True)
class Feedback:
    """A checker's verdict: ``ok`` True (right), False (not yet) or None (no answer yet)."""

    ok: bool | None
    message: str

    def __repr__(self) -> str:
        return self.message

    __str__ = __repr__


class NotUnderstood(ValueError):
    """The answer could not be read as what the exercise asks for; the message says why, kindly."""


def _shown(answer: object) -> str:
    text = repr(answer)
    return text if len(text) <= 40 else text[:37] + "..."


def read_number(answer: object, what: str = "a number") -> float:
    """A number from what a learner typed: ``11``, ``11.0``, ``' 11 slots'``, ``'1,303'``, ``'2%'`` (-> 2)."""
    if isinstance(answer, bool):
        raise NotUnderstood(f"{answer!r} is a yes/no, and this asks for {what}.")
    if isinstance(answer, Real):
        value = float(answer)
    elif isinstance(answer, str):
        match = _NUMBER.match(answer.strip())
        if match is None:
            raise NotUnderstood(f"I could not find a number in {_shown(answer)}; this asks for {what}.")
        value = float(match.group(1).replace(",", "").replace("_", ""))
    else:
        raise NotUnderstood(f"{_shown(answer)} is not {what}.")
    if not math.isfinite(value):
        raise NotUnderstood(f"{_shown(answer)} is not a finite number; this asks for {what}.")
    return value


def read_whole(answer: object, low: int, high: int, what: str = "a whole number") -> int:
    """A whole number in ``low..high`` from what a learner typed (``8``, ``'8'``, ``8.0``)."""
    value = read_number(answer, what)
    if value != int(value):
        raise NotUnderstood(f"{value:g} is not a whole number; this asks for {what}.")
    if not low <= value <= high:
        raise NotUnderstood(f"{value:g} is not in {low}..{high}: this asks for {what}.")
    return int(value)


def read_split(answer: object, total: int = TOTAL) -> int | None:
    """A layout from what a learner typed: ``24``, ``'24/8'``, ``'single pool'`` or ``0`` (-> None).

    ``0`` is the split slider's position for the single pool, so it reads as the single pool.
    """
    what = f"a split (tracking slots, 1..{total - 1}, like 24 or '24/8') or 'single pool'"
    if isinstance(answer, str):
        text = answer.strip().lower()
        if text in _SINGLE_WORDS or text.startswith("single pool") or text == "0":
            return None
        parts = [p.strip() for p in text.split("/")]
        if len(parts) == 2:
            left, right = (read_whole(p, 1, total - 1, "a pool's slots") for p in parts)
            if left + right != total:
                raise NotUnderstood(
                    f"{left} + {right} is {left + right}, not {total}: a split shares out the {total} slots."
                )
            return left
    if isinstance(answer, Real) and not isinstance(answer, bool) and float(answer) == 0:
        return None
    return read_whole(answer, 1, total - 1, what)


Judge = Callable[[Any], Feedback]


class Exercise:
    """One exercise: a judge that takes anything, a hint, and a worked answer shown on request.

    ``answer()`` returns what the worked answer displays (sentences, tables, figures); it
    runs only when asked, through the *Show answer* button or :meth:`show_answer`.
    """

    def __init__(
        self,
        number: int,
        title: str,
        *,
        judge: Judge,
        hint: str,
        answer: Callable[[], Iterable[object]],
        placeholder: str = "your answer",
    ) -> None:
        self.number = number
        self.title = title
        self.hint = hint
        self._judge = judge
        self._answer = answer
        self.placeholder = placeholder

    def check(self, answer: object) -> Feedback:
        """One friendly line about ``answer``, whatever it is."""
        if answer is None or (isinstance(answer, str) and not answer.strip()):
            return Feedback(None, f"No answer yet. Hint: {self.hint}")
        try:
            verdict = self._judge(answer)
        except NotUnderstood as why:
            return Feedback(False, f"Not yet: {why} Hint: {self.hint}")
        except (ValueError, TypeError, ArithmeticError, LookupError):
            return Feedback(
                False, f"Not yet: I could not read {_shown(answer)} as an answer. Hint: {self.hint}"
            )
        return Feedback(verdict.ok, " ".join(verdict.message.split()))  # always one line

    def worked_answer(self) -> list[object]:
        """The worked answer's parts (computed now)."""
        return list(self._answer())

    def show_answer(self) -> None:
        """Display the worked answer (what the *Show answer* button does); sentences as text."""
        for part in self.worked_answer():
            display(Markdown(part) if isinstance(part, str) else part)

    def widget(self) -> w.VBox:
        """An answer box, a Check button, the feedback line, and a Show answer button."""
        box = w.Text(placeholder=self.placeholder, continuous_update=False, layout=w.Layout(width="16em"))
        box.add_class(f"bl-answer-{self.number}")
        check = w.Button(description="Check", button_style="primary")
        check.add_class(f"bl-check-{self.number}")
        feedback = w.Label("")
        feedback.add_class(f"bl-feedback-{self.number}")
        reveal = w.Button(description="Show answer")
        reveal.add_class(f"bl-show-answer-{self.number}")
        shown = w.Output()
        shown.add_class(f"bl-answer-shown-{self.number}")

        def on_check(_: object = None) -> None:
            feedback.value = self.check(box.value).message

        def on_reveal(_: object) -> None:
            reveal.disabled = True
            with shown:
                self.show_answer()

        check.on_click(on_check)
        box.observe(on_check, names="value")  # Enter (or leaving the box) checks too
        reveal.on_click(on_reveal)
        panel = w.VBox([w.HBox([box, check, reveal]), feedback, shown])
        panel.add_class(f"bl-exercise-{self.number}")
        return panel

    def _ipython_display_(self) -> None:
        display_widget(self.widget(), f"Exercise {self.number}: run this cell to get the answer box.")

    def __repr__(self) -> str:
        return f"Exercise {self.number}: {self.title}"
