"""The numbers notebook 05 shows: tables, fact lines, and what each slider view redraws.

Pure data (pandas frames and frozen dataclasses) from seeded runs memoised
(:mod:`bulkhead_lab.memo`; section 6: from a live run); :mod:`..figures` draws them and
:mod:`..panels` wires them to sliders. Split by section: :mod:`.basics` (1-3),
:mod:`.explore` (4), :mod:`.pitfalls` (5), :mod:`.live` (6: a live run around lesson 004's
Payment).
"""

from bulkhead_lab.course.adaptive_limits.views.basics import (
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
from bulkhead_lab.course.adaptive_limits.views.explore import (
    BIN,
    KNOBS,
    LENGTHS,
    ExploreView,
    Knob,
    explore_view,
)
from bulkhead_lab.course.adaptive_limits.views.live import (
    LIVE_ALGORITHM,
    LIVE_SLOW_FOR,
    SLOW_FORS,
    LiveView,
    live_run,
    live_view,
    planned,
)
from bulkhead_lab.course.adaptive_limits.views.pitfalls import (
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
    "LIVE_ALGORITHM",
    "LIVE_SLOW_FOR",
    "SLOW_FORS",
    "SMOOTHINGS",
    "TOLERANCES",
    "UPDATES",
    "ComparisonView",
    "DriftView",
    "ExploreView",
    "Knob",
    "LiveView",
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
    "live_run",
    "live_view",
    "planned",
    "ramp_view",
    "reaction_sweep",
    "reaction_view",
    "sizing_question",
    "vocabulary",
]
