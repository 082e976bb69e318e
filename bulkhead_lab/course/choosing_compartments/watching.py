"""Notebook 08, section 5's seeded tables: each flow sized from a day's trace, the alert lines, and the
event compartment's seeded hours read as its alerts read them (:mod:`bulkhead_lab.compartments.hours`).
:mod:`.views` shows them under its own names."""

from __future__ import annotations

import pandas as pd

from bulkhead_lab.compartments import hours, production, watch

SLO = watch.Slo()  # 99% of calls answered within 250 ms
ALERTS = watch.Alerts()
COUNT_ALERT = 0  # an alert on a raw count: any refusal in a minute, for comparison


def limits_table(limits: tuple[production.Limit, ...]) -> pd.DataFrame:
    """Each flow sized from its busiest minute and from its busiest hour's mean, and by rate x p99 and
    rate x p50; one column per flow."""
    columns = {}
    for limit in limits:
        hour, peak = limit.hour, limit.peak_hour
        columns[limit.flow] = {
            "busiest hour (most calls in flight)": f"{hour.hour}:00",
            "calls/s over that hour": round(hour.rate, 1),
            "busiest minute: in the hour of": f"{peak.hour}:00",
            "calls/s in that minute": round(peak.peak_rate, 1),
            "mean latency (ms)": round(1000 * peak.mean, 1),
            "p99 latency (ms)": round(1000 * peak.p99, 1),
            "in flight in that minute (rate x mean)": round(limit.peak_in_flight, 2),
            f"slots for {limit.target:.0%}, from the busiest minute": limit.slots,
            f"slots for {limit.target:.0%}, from the busiest hour's mean": limit.hour_slots,
            "  ... refuse in the busiest minute %": round(100 * limit.blocking(limit.hour_slots), 1),
            "rate x p99": limit.by_p99,
            "rate x p50": limit.by_p50,
            "  ... refuse in the busiest minute % ": round(100 * limit.blocking(limit.by_p50), 1),
        }
    return pd.DataFrame(columns).rename_axis("busiest minute's rate, Erlang-B (no waiting places)")


def alert_lines(alerts: watch.Alerts = ALERTS, slo: watch.Slo = SLO) -> str:
    """Each reading's alert line in words, with the numbers the alerts use."""
    short, spent = alerts.short_window, alerts.budget_spent
    limit = production.limits(production.lesson_day())[1]

    def burn_line(name: str, burn: float, long_: int, short_: int) -> str:
        return (
            f"SLO burn, {name}: at least {burn:g} over the last {_span(long_)} and the last {_span(short_)} "
            f"({spent(burn, long_):.0%} of the {alerts.period_days}-day error budget in "
            f"{'an hour' if long_ == 60 else _span(long_)})"
        )

    return "\n".join(
        [
            f"the event compartment: {limit.slots} places and {production.QUEUE} waiting places; its SLO: "
            f"{slo.target:.0%} of calls answered within {1000 * slo.latency:.0f} ms",
            f"saturation: every place taken at least {alerts.saturation:.0%} of the last {short} minutes",
            f"refusals: at least {alerts.refusal_ratio:.0%} of the last {short} minutes' calls refused",
            f"p99 wait: at least {1000 * alerts.wait_share * slo.latency:.0f} ms (half the SLO's "
            f"{1000 * slo.latency:.0f} ms) over the last {short} minutes",
            burn_line("page", alerts.burn, alerts.long_window, short),
            burn_line("slower page", alerts.slow_burn, alerts.slow_long, alerts.slow_short),
            burn_line("ticket", alerts.ticket_burn, alerts.ticket_long, alerts.ticket_short),
        ]
    )


def _span(minutes: int) -> str:
    """Minutes in words, after 'the last': '5 minutes', 'hour', '6 hours', '3 days'."""
    for unit, size in (("day", 24 * 60), ("hour", 60), ("minute", 1)):
        if minutes % size == 0:
            n = minutes // size
            return unit if n == 1 else f"{n} {unit}s"
    return f"{minutes} minutes"


def _hour_row(label: str, run: hours.HourRun) -> dict[str, object]:
    r = run.readings()
    return {
        "stretch": label,
        "calls": r.calls,
        "refused": r.refused,
        "refusal ratio %": round(100 * r.refusal_ratio, 2),
        "saturation %": round(100 * r.saturation, 1),
        "p99 wait (ms)": round(1000 * r.p99_wait, 1),
        "burn, 5 min": round(run.burn(ALERTS.short_window), 2),
        "burn, 1 h": round(run.burn(ALERTS.long_window), 2),
        "alerts": ", ".join(run.firing(ALERTS)) or "none",
    }


def hours_table(stretches: tuple[production.Stretch, ...] = production.STRETCHES) -> pd.DataFrame:
    """The event compartment at the end of each seeded hour: the readings over its last 5 minutes, the
    burn over 5 minutes and the hour, and the alerts on."""
    rows = [_hour_row(s.label, production.stretch_hour(s)) for s in stretches]
    return pd.DataFrame(rows).set_index("stretch").rename_axis("last 5 minutes of")


def pages_table(stretches: tuple[production.Stretch, ...] = production.STRETCHES) -> pd.DataFrame:
    """Over each seeded hour: the minutes an alert on a count and an alert on a one-minute burn of 1
    fire, whether the workbook's page fires at the hour's end, and the error budget the hour spent."""
    rows = []
    for s in stretches:
        run = production.stretch_hour(s)
        burns = run.minute_burns()
        rows.append(
            {
                "stretch": s.label,
                "any refusal in a minute: minutes on": sum(m.refused > COUNT_ALERT for m in run.minutes),
                "burn >= 1 over a minute: minutes on": sum(b >= 1 for b in burns),
                f"page ({ALERTS.burn:g} over 1 h and 5 min)": "fires" if run.pages(ALERTS) else "-",
                "budget spent in the hour %": round(
                    100 * ALERTS.budget_spent(run.burn(ALERTS.long_window), ALERTS.long_window), 3
                ),
            }
        )
    return pd.DataFrame(rows).set_index("stretch").rename_axis(f"of {len(run.minutes)} minutes")


def watched_hour(hour: int, slower: float = 1.0, minutes: int = 60) -> pd.DataFrame:
    """One seeded hour of the event compartment, its latency x ``slower`` over its last ``minutes``,
    as a one-row :func:`hours_table` (a learner's check of a prediction)."""
    label = f"{hour}:00, latency x {slower:g} for its last {minutes} min"
    return hours_table((production.Stretch(label, hour, slower, minutes),))
