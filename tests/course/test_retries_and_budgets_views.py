"""Notebook 06's slider views: what each slider means to the callers and the budgets a panel offers. The
tables and facts the notebook prints (the sources' worst cases, Envoy's rates, the contention, the retrying
callers in lesson 000's rounds, whose budget, the storm's drain) are nbval's to compare, number for number."""

from __future__ import annotations

import pytest

from bulkhead_lab.course.retries_and_budgets import views
from bulkhead_lab.retries.budgets import SRE_BUDGET


def test_no_budget_on_the_panels_is_envoys_modelled_as_a_share_of_calls() -> None:
    assert not any("Envoy" in name for name in views.BUDGETS)
    assert max(len(name) for name in views.BUDGETS) <= len("10% (SRE)")  # a readout that shows whole


def test_the_sliders_describe_the_callers() -> None:
    setup = views.setup_of(4, "at once", 20, "10% (SRE)", "both flows")
    assert setup.policy.attempts == 4 and setup.policy.backoff is None
    assert setup.budget == SRE_BUDGET and setup.shared
    backoff = views.setup_of(jitter="decorrelated", base=50).policy.backoff
    assert backoff is not None and (backoff.base, backoff.jitter) == (50, "decorrelated")
    with pytest.raises(ValueError, match="^budget must be one of"):
        views.setup_of(budget="11%")
