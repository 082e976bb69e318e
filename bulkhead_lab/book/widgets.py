"""A slider panel, a live run's bar or an exercise's answer box, as a page that cannot run them shows it.

A notebook saved after Run All keeps each widget's state in its metadata
(``metadata.widgets[WIDGET_STATE].state``); a panel's figure and table are the outputs of its
``OutputModel``. :func:`static_outputs` turns one widget view into plain outputs: the figures and tables
the panel last drew, each figure followed by one line giving the controls' saved settings and the command
that opens the lab, where they move; a bar's last status line; an answer box's one line of what it does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
LAB_COMMAND = "bash scripts/lab.sh"
IMAGE = "image/png"

Output = dict[str, Any]
Models = dict[str, dict[str, Any]]

_CHOICES = ("SelectionSliderModel", "ToggleButtonsModel", "DropdownModel", "RadioButtonsModel")
_NUMBERS = ("IntSliderModel", "FloatSliderModel", "FloatLogSliderModel", "BoundedIntTextModel")
_READOUT = {"IntSliderModel": "d", "FloatSliderModel": ".2f", "FloatLogSliderModel": ".3g"}


@dataclass(frozen=True)
class Widget:
    """What a widget view holds, read from the saved state: its settings, status lines and outputs."""

    settings: tuple[str, ...]
    statuses: tuple[str, ...]
    outputs: tuple[Output, ...]
    is_exercise: bool


def saved_models(notebook: dict[str, Any]) -> Models:
    """Every widget model the notebook saved, by model id (empty if it saved none)."""
    widgets = notebook.get("metadata", {}).get("widgets", {})
    state: Models = widgets.get(WIDGET_STATE, {}).get("state", {})
    return state


def model_tree(models: Models, model_id: str) -> list[dict[str, Any] | None]:
    """The model ``model_id`` and every model under it, in the order a page draws them; ``None`` for each
    the saved state does not hold.

    There are such when the lab saved the notebook after its cells ran without saving the widget state (its
    default): the outputs name the new widgets, the state still holds those of the last full save.
    """
    model = models.get(model_id)
    if model is None:
        return [None]
    children = (str(child).removeprefix("IPY_MODEL_") for child in model.get("state", {}).get("children", []))
    return [model, *(m for child in children for m in model_tree(models, child))]


def _setting(model: dict[str, Any]) -> str | None:
    """``description = value`` for a slider or a choice; ``None`` for anything else.

    The lab saves widget state without the values left at their defaults (``drop_defaults``): a missing
    ``index`` or ``value`` is 0, a missing ``readout_format`` ipywidgets' own.
    """
    state = model["state"]
    labels = state.get("_options_labels", [])
    if model["model_name"] in _CHOICES and state.get("index", 0) is not None and labels:
        value = str(labels[state.get("index", 0)])
    elif model["model_name"] in _NUMBERS:
        default = _READOUT.get(model["model_name"], "")
        value = format(state.get("value", 0), state.get("readout_format", default) or "")
    else:
        return None
    return f"{state.get('description') or 'value'} = {value}"


def read_widget(models: Models, model_id: str) -> Widget:
    """The saved settings, status lines and drawn outputs of the widget ``model_id``."""
    tree = [m for m in model_tree(models, model_id) if m is not None]
    settings = [s for s in map(_setting, tree) if s is not None]
    statuses = [
        str(m["state"]["value"]) for m in tree if m["model_name"] == "LabelModel" and m["state"].get("value")
    ]
    outputs = [o for m in tree if m["model_name"] == "OutputModel" for o in m["state"].get("outputs", [])]
    exercise = any(
        m["model_name"] == "ButtonModel" and m["state"].get("description") == "Check" for m in tree
    )
    return Widget(tuple(settings), tuple(statuses), tuple(outputs), exercise)


def note(markdown: str) -> Output:
    """A display output of one line of Markdown."""
    return {"output_type": "display_data", "data": {"text/markdown": markdown}, "metadata": {}}


def slider_note(widget: Widget) -> str:
    """The line under a panel's figure: the settings it was drawn at, and where the sliders move."""
    settings = "; ".join([*widget.settings, *widget.statuses])
    drawn = f"Drawn at the saved settings: {settings}. " if settings else ""
    return (
        f"*{drawn}In the lab the controls move and this figure redraws: open it with "
        f"`{LAB_COMMAND}`, then Run ▸ Run All Cells.*"
    )


EXERCISE_NOTE = (
    "*Answer box: in the lab you type your answer here, **Check** says whether it is right, **Hint** "
    f"gives a hint and **Show answer** the worked answer. Open the lab with `{LAB_COMMAND}`.*"
)
CONTROL_NOTE = f"*An interactive control: it runs in the lab, opened with `{LAB_COMMAND}`.*"
UNSAVED_NOTE = (
    "*A panel or control whose last drawing this copy of the notebook does not hold (the lab saved it "
    f"without its widget state): it runs in the lab, opened with `{LAB_COMMAND}`.*"
)


def static_outputs(models: Models, model_id: str) -> list[Output]:
    """What a page shows in place of the widget view ``model_id``."""
    if model_id not in models:
        return [note(UNSAVED_NOTE)]
    widget = read_widget(models, model_id)
    if widget.is_exercise:
        return [note(EXERCISE_NOTE)]
    shown: list[Output] = []
    for output in widget.outputs:
        shown.append({"metadata": {}, **output})
        if IMAGE in output.get("data", {}):
            shown.append(note(slider_note(widget)))
    if not any(IMAGE in o.get("data", {}) for o in widget.outputs):
        if widget.statuses:
            shown.append(note("*" + "; ".join(widget.statuses) + " (when the notebook was saved).*"))
        elif not shown:
            shown.append(note(CONTROL_NOTE))
    return shown


def replace_widget_views(outputs: list[Output], models: Models) -> list[Output]:
    """A cell's outputs with each widget view replaced by :func:`static_outputs`."""
    replaced: list[Output] = []
    for output in outputs:
        view = output.get("data", {}).get(WIDGET_VIEW)
        if view is None:
            replaced.append(output)
        else:
            replaced += static_outputs(models, str(view.get("model_id", "")))
    return replaced
