"""The numbers notebook 05 shows: tables, fact lines, and what each slider view redraws.

Pure data (pandas frames and frozen dataclasses) from seeded runs kept by
:mod:`bulkhead_lab.cache`; :mod:`..figures` draws them and :mod:`..panels` wires them to
sliders. Split by section: :mod:`.basics` (1-3), :mod:`.explore` (4), :mod:`.pitfalls` (5).
"""

from .basics import (
    FLOWS,
    LESSON,
    ComparisonView,
    algorithms,
    comparison_frame,
    comparison_view,
    limits_at_failure,
    sizing_question,
    vocabulary,
)
from .explore import BIN, KNOBS, LENGTHS, ExploreView, Knob, explore_view
from .pitfalls import (
    DRIFT_LENGTHS,
    SMOOTHINGS,
    TOLERANCES,
    UPDATES,
    DriftView,
    RampView,
    ReactionView,
    Tuned,
    drift_table,
    drift_view,
    ramp_view,
    reaction_sweep,
    reaction_view,
)

__all__ = [
    "BIN",
    "DRIFT_LENGTHS",
    "FLOWS",
    "KNOBS",
    "LENGTHS",
    "LESSON",
    "SMOOTHINGS",
    "TOLERANCES",
    "UPDATES",
    "ComparisonView",
    "DriftView",
    "ExploreView",
    "Knob",
    "RampView",
    "ReactionView",
    "Tuned",
    "algorithms",
    "comparison_frame",
    "comparison_view",
    "drift_table",
    "drift_view",
    "explore_view",
    "limits_at_failure",
    "ramp_view",
    "reaction_sweep",
    "reaction_view",
    "sizing_question",
    "vocabulary",
]
