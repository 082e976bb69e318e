"""Exercises as data: one :class:`Exercise` type, each of the course's exercises an instance of it.

An Exercise holds no judging code: a *reader* (the ``read_*`` helpers, or a small function of the
notebook's; for a write-it-yourself exercise, :func:`judged`: a judge of ``course/judges`` run on the
learner's code, whose :class:`~bulkhead_lab.course.judges.contract.Verdict` then decides alone, its ``ok``
and its line), the *right* answer (a function of the package, called when needed, never a stored figure), a
*tolerance* and *unit*, known *wrong* answers with what each says, what to say *otherwise* (above or below
the right answer), a *hint* and the *worked* answer's parts, made only on request. Messages are templates over
an :class:`Answer`'s names, or functions of it. :meth:`Exercise.check` takes anything and answers in
one line (``Right: ...``, ``Not yet: ...``, ``No answer yet. ...``), never a traceback; the hint waits
behind a *Hint* button.
"""

from __future__ import annotations

import html
import inspect
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal, TypeAlias

import ipywidgets as w
import pandas as pd
from IPython import get_ipython
from IPython.display import Markdown, display

from bulkhead_lab.course.judges.contract import Verdict
from bulkhead_lab.course.ui.panel import display_widget
from bulkhead_lab.course.ui.trial import DEADLINE, Fault, short_repr, trial
from bulkhead_lab.pool.params import TOTAL

_NUMBER = re.compile(r"^[^\d+\-.]*([-+]?(?:\d[\d,_]*)?\.?\d+(?:[eE][-+]?\d+)?)\s*(%?)")
_SINGLE_WORDS = ("single", "one pool", "shared", "shared pool", "none", "no split", "no bulkhead")
_PARTS = ("answer", "check", "feedback", "show-answer", "answer-shown", "hint", "hint-shown")  # CSS classes
_ZERO_WORDS = ("none", "zero", "nothing", "nil", "no")  # a count of 0, typed as a word


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


def _is_number(x: object) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool)


def read_number(answer: object, what: str = "a number") -> float:
    """A number from what a learner typed: ``11``, ``11.0``, ``' 11 slots'``, ``'1,303'``, ``'2%'`` (-> 2)."""
    if isinstance(answer, bool):
        raise NotUnderstood(f"{answer!r} is a yes/no, and this asks for {what}.")
    if isinstance(answer, Real):
        value = float(answer)
    elif isinstance(answer, str):
        match = _NUMBER.match(answer.strip())
        if match is None:
            raise NotUnderstood(f"I could not find a number in {short_repr(answer)}; this asks for {what}.")
        value = float(match.group(1).replace(",", "").replace("_", ""))
    else:
        raise NotUnderstood(f"{short_repr(answer)} is not {what}.")
    if not math.isfinite(value):
        raise NotUnderstood(f"{short_repr(answer)} is not a finite number; this asks for {what}.")
    return value


def read_whole(answer: object, low: int, high: int, what: str = "a whole number") -> int:
    """A whole number in ``low..high`` (``8``, ``'8'``, ``8.0``); where 0 may be, 'none' or 'no' is 0."""
    words = answer.strip(" .!").lower().split() if isinstance(answer, str) else []
    if low <= 0 and words and words[0] in _ZERO_WORDS and (words[0] != "no" or len(words) == 1):
        return 0
    value = read_number(answer, what)
    if value != int(value):
        raise NotUnderstood(f"{value:g} is not a whole number; this asks for {what}.")
    if not low <= value <= high:
        raise NotUnderstood(f"{value:g} is not in {low}..{high}: this asks for {what}.")
    return int(value)


def read_split(answer: object, total: int = TOTAL) -> int | None:
    """A layout: ``24``, ``'24/8'``, ``'single pool'`` or ``0`` (the split slider's single pool) -> None."""
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


def read_choice(answer: object, words: Sequence[tuple[str, str]], what: str) -> str:
    """One of a few named answers: the choice of the first ``(word, choice)`` whose word was typed."""
    text = answer.strip().lower() if isinstance(answer, str) else ""
    for word, choice in words:
        if word in text:
            return choice
    raise NotUnderstood(f"this asks for {what}.")


def read_duration(answer: object, unit: Literal["s", "ms"], what: str) -> float:
    """A duration in ``unit``: ``'9 s'``, ``'9000 ms'``; a bare number is ms from 100 up, seconds below."""
    value = read_number(answer, what)
    typed = re.search(r"\d\s*(ms|mil|s)", answer.lower()) if isinstance(answer, str) else None
    in_ms = typed.group(1) != "s" if typed else value >= 100
    return value * {(True, "s"): 0.001, (False, "ms"): 1000.0}.get((in_ms, unit), 1.0)


def read_code(answer: object, kind: Literal["class", "function"] = "class") -> object:
    """A learner's class or function for a code exercise: passed itself (``check(MyBulkhead)``), or its
    name as typed in the answer box, looked up in the notebook's own namespace (IPython's ``user_ns``)."""
    if not isinstance(answer, str):
        return answer
    name = answer.strip()
    if not name.isidentifier():
        raise NotUnderstood(
            f"{short_repr(answer)} is not a name: type your {kind}'s name, as its cell defines it."
        )
    shell = get_ipython()
    namespace: dict[str, Any] = getattr(shell, "user_ns", None) or {}
    if name not in namespace:
        raise NotUnderstood(f"nothing is called {name} in this notebook yet: run the cell that defines it.")
    return namespace[name]


def run_trial(check: Callable[[], Any], seconds: float = DEADLINE) -> Any:
    """A code exercise's reader: what ``check`` measured of the learner's object (run by :func:`trial`),
    or one :class:`NotUnderstood` line: the check's Fault, what the learner's code raised, or the deadline."""
    outcome = trial(check, seconds)
    if outcome.timed_out:
        raise NotUnderstood(f"it was still running after {seconds:g} s.")
    if isinstance(outcome.error, Fault):
        raise NotUnderstood(str(outcome.error))
    if outcome.error is not None:
        why = (str(outcome.error).splitlines() or ["no message"])[0]
        raise NotUnderstood(f"it raised {type(outcome.error).__name__}: {why}.")
    return outcome.value  # a check that returned None is judged as None


def judged(
    judge: Callable[[Any], Any], kind: Literal["class", "function"] = "class"
) -> Callable[[object], Any]:
    """A write-it-yourself exercise's reader: the learner's class or function (or its name, looked up first:
    a name nothing holds is its line before anything runs) handed to ``judge`` in :func:`run_trial`."""

    def read(answer: object) -> Any:
        candidate = read_code(answer, kind)
        return run_trial(lambda: judge(candidate))

    return read


def source(course_own: Callable[..., Any]) -> Callable[[Answer], str]:
    """A worked answer's part: the source of the course's own class or function, as a Python block."""
    return lambda _: f"```python\n{inspect.getsource(course_own)}```"


class Answer:
    """One answer as read: ``value``, ``shown``, ``right`` and the exercise's figures, for its messages."""

    def __init__(self, exercise: Exercise, value: Any, right: Any) -> None:
        self._figures = exercise.figures(value) if exercise.figures else {}
        self._tolerance = exercise.tolerance
        self.value, self.right = value, right
        number = f"{value:g}" if isinstance(value, float) else str(value)
        self.shown = f"{number} {exercise.unit}" if exercise.unit else number

    def __getattr__(self, name: str) -> Any:
        if isinstance(self._figures, Mapping):
            if name in self._figures:
                return self._figures[name]
            raise AttributeError(f"the exercise's figures name no {name!r}")
        return getattr(self._figures, name)

    def __getitem__(self, name: str) -> Any:  # how str.format_map reads the names
        return getattr(self, name)

    def is_(self, other: object) -> bool:
        """The answer is ``other``: within the exercise's tolerance for numbers."""
        if _is_number(self.value) and _is_number(other):
            return bool(abs(self.value - other) <= self._tolerance + 1e-9)
        return bool(self.value == other)

    def say(self, what: Say) -> str:
        return what.format_map(self) if isinstance(what, str) else what(self)


Say: TypeAlias = "str | Callable[[Answer], str]"  # a template over the answer's names, or a function of it


def table(index: str, columns: Sequence[str], rows: Mapping[Any, Sequence[object]]) -> pd.DataFrame:
    """A worked answer's table: a row per key of ``rows`` (the index, named ``index``)."""
    return pd.DataFrame.from_dict(dict(rows), orient="index", columns=list(columns)).rename_axis(index)


def wrapping(line: str) -> str:
    """``line`` as HTML that wraps inside its box at any width (escaped: a learner's input is text)."""
    text = html.escape(line)
    return f'<div style="white-space: normal; overflow-wrap: anywhere; line-height: 1.4">{text}</div>'


@dataclass(frozen=True)
class Wrong:
    """A known wrong answer: when ``when`` holds of the :class:`Answer`, the learner reads ``says``."""

    when: Callable[[Answer], object]
    says: Say


@dataclass(frozen=True, eq=False)
class Exercise:
    """One exercise, as data; see the module's docstring for what each part is."""

    number: int
    title: str
    read: Callable[[Any], Any]  # what was passed -> the value judged (a judge's Verdict), or NotUnderstood
    hint: str
    worked: tuple[str | Callable[[Answer], object], ...]  # sentences, tables, figures, on request
    right: Callable[[], Any] = lambda: None  # a write-it-yourself exercise has none: its judge decides
    right_says: Say = "{value}"
    placeholder: str = "your answer"
    typed: str = ""  # what the answer box holds before the learner types (a code exercise: a class name)
    tolerance: float = 0.0
    unit: str = ""
    figures: Callable[[Any], object] | None = None  # value -> the names its messages use
    wrong: tuple[Wrong, ...] = ()
    otherwise: Say | tuple[Say, Say] = ("{shown} is too many.", "{shown} is too few.")  # above, below
    right_when: Callable[[Answer], object] | None = None  # when "right" is more than ``is_(right)``

    def check(self, answer: object) -> Feedback:
        """One friendly line about ``answer``, whatever it is: the verdict alone (the hint is behind the
        answer box's *Hint* button, :attr:`hint`, as the worked answer is behind *Show answer*)."""
        if answer is None or (isinstance(answer, str) and not answer.strip()):
            return Feedback(None, f"No answer yet. Type {self.placeholder}, then press Check (Hint helps).")
        try:
            ok, message = self._judge(Answer(self, self.read(answer), self.right()))
        except NotUnderstood as why:
            ok, message = False, str(why)
        except (ValueError, TypeError, ArithmeticError, LookupError):
            ok, message = False, f"I could not read {short_repr(answer)} as an answer."
        line = f"Right: {message}" if ok else f"Not yet: {message}"
        return Feedback(ok, " ".join(line.split()))  # always one line

    def _judge(self, a: Answer) -> tuple[bool, str]:
        if isinstance(a.value, Verdict):  # a write-it-yourself exercise: its judge's verdict and line
            return a.value.ok, a.value.says
        right = self.right_when(a) if self.right_when else a.is_(a.right)
        if right:
            return True, a.say(self.right_says)
        for wrong in self.wrong:
            if wrong.when(a):
                return False, a.say(wrong.says)
        if not isinstance(self.otherwise, tuple):
            return False, a.say(self.otherwise)
        above, below = self.otherwise
        ordered = _is_number(a.value) and _is_number(a.right)
        return False, a.say(below if ordered and a.value < a.right else above)

    def worked_answer(self) -> list[object]:
        """The worked answer's parts, computed now for the right answer."""
        right = self.right()
        a = Answer(self, right, right)
        return [a.say(part) if isinstance(part, str) else part(a) for part in self.worked]

    def show_answer(self) -> None:
        """Display the worked answer (what the *Show answer* button does); sentences as text."""
        for part in self.worked_answer():
            display(Markdown(part) if isinstance(part, str) else part)

    def widget(self) -> w.VBox:
        """An answer box, Check, Hint and Show answer buttons, the feedback line (which wraps inside the
        box at any width: an HTML widget, not a one-line Label) and the hint and worked answer below it."""
        box = w.Text(
            self.typed, placeholder=self.placeholder, continuous_update=False, layout=w.Layout(width="16em")
        )
        check = w.Button(description="Check", button_style="primary")
        feedback = w.HTML("")
        hint = w.Button(description="Hint")
        hinted = w.HTML("")
        reveal = w.Button(description="Show answer")
        shown = w.Output()
        parts = (box, check, feedback, reveal, shown, hint, hinted)
        for part, name in zip(parts, _PARTS, strict=True):
            part.add_class(f"bl-{name}-{self.number}")  # what the browser tests find

        def on_check(_: object = None) -> None:
            feedback.value = wrapping(self.check(box.value).message)

        def on_hint(_: object) -> None:
            hint.disabled = True
            hinted.value = wrapping(f"Hint: {self.hint}")

        def on_reveal(_: object) -> None:
            reveal.disabled = True
            with shown:
                self.show_answer()

        check.on_click(on_check)
        box.observe(on_check, names="value")  # Enter (or leaving the box) checks too
        hint.on_click(on_hint)
        reveal.on_click(on_reveal)
        panel = w.VBox([w.HBox([box, check, hint, reveal]), feedback, hinted, shown])
        panel.add_class(f"bl-exercise-{self.number}")
        return panel

    def _ipython_display_(self) -> None:
        display_widget(self.widget(), f"Exercise {self.number}: run this cell to get the answer box.")

    def __repr__(self) -> str:
        return f"Exercise {self.number}: {self.title}"
