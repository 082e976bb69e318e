"""Nine samples worked out by hand for an AIMD limiter, and the first a learner's limiter gets wrong.

Notebook 05's exercise 3 (``adaptive_limits.exercises.write_aimd``) replays :data:`TRACE` on the
learner's class, built with :data:`SETTINGS`; the tests check every hand-worked limit against the
package's :class:`~bulkhead_lab.adaptive.limits.AIMDLimit` (backoff 0.9, timeout 500 ms).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Sample(NamedTuple):
    """One finished call for the learner's limiter, and the limit after it, worked out by hand."""

    rtt: float  # ms
    inflight: int
    dropped: bool
    limit: int  # AIMD's limit after this sample
    says: str  # what the sample is, for the one-line answer


# initial 20, min 15, max 22, backoff 0.9, timeout 500 ms; each limit below is worked out by hand.
SETTINGS = (20, 15, 22)
TRACE = (
    Sample(80, 12, False, 21, "a success with 12 in flight at limit 20"),  # 12 x 2 >= 20: + 1
    Sample(80, 11, False, 22, "a success with 11 in flight at limit 21"),  # 22 >= 21: + 1
    Sample(80, 15, False, 22, "a success at the max, 22"),  # 23 is over the max: 22
    Sample(80, 4, False, 22, "a success with only 4 in flight at limit 22"),  # 8 < 22: unchanged
    Sample(0, 9, True, 19, "a drop at limit 22"),  # int(22 x 0.9) = int(19.8)
    Sample(900, 10, False, 17, "a 900 ms call, over the timeout, at limit 19"),  # int(17.1)
    Sample(0, 9, True, 15, "a drop at limit 17"),  # int(15.3)
    Sample(0, 9, True, 15, "a drop at limit 15, the min"),  # int(13.5) = 13, under the min: 15
    Sample(80, 8, False, 16, "a success with 8 in flight at limit 15"),  # 16 >= 15: + 1
)


def first_wrong_sample(limiter: Any) -> str | None:
    """What the limiter (built with :data:`SETTINGS`) got wrong first over :data:`TRACE`, in one line;
    None when it gives every hand-worked limit. What its ``on_sample`` raises passes through."""
    for n, s in enumerate(TRACE, 1):
        got = limiter.on_sample(s.rtt, s.inflight, s.dropped)
        if got is None or isinstance(got, bool) or not isinstance(got, (int, float)):
            return f"after sample {n} ({s.says}) on_sample returned {got!r:.30}: return the new limit."
        if got != s.limit:
            return f"after sample {n} ({s.says}) the limit should be {s.limit}, yours is {got:g}."
    return None
