"""Notebook 09's sliders in the model: every stop is the partition's own run, the curves' chosen stop is
read from them, and the exercises' answers follow from the same runs."""

from __future__ import annotations

from bulkhead_lab.compartments import partition_sweep, partitions


def test_the_soft_curves_are_each_stops_own_run_on_both_days() -> None:
    curves = partition_sweep.soft_view(3 / 8)
    assert curves.label == "9/3 reserved, 20 shared" and len(curves.xs) == 9
    for i, share in enumerate(partition_sweep.EIGHTHS):
        run = partitions.soft_counters(partition_sweep.DAYS["slowdown"], partitions.reserves(share))
        assert curves.drops["slowdown"]["tracking dropped"][i] == run.tracking_dropped
    assert curves.at()["healthy"] == partition_sweep.drops(partition_sweep.soft_days(3 / 8)["healthy"])


def test_keeping_nothing_back_is_called_the_single_pool() -> None:
    """Both sliders' ends are lesson 000's two layouts: test_soft_partitions.py, on the runs these keep."""
    assert partition_sweep.shed_view(0).label == "one pool, nothing kept back"


def test_the_first_costly_share_passes_the_margin_and_the_share_below_does_not() -> None:
    k, single = partition_sweep.first_costly_share(), partition_sweep.healthy_drops(0.0)
    limit = single * (1 + partition_sweep.MARGIN)
    assert partition_sweep.healthy_drops(k / 8) > limit >= partition_sweep.healthy_drops((k - 1) / 8)
    # not a call away from the line: both stops are at least 5% of the single pool's drops from it
    assert partition_sweep.healthy_drops(k / 8) - limit >= 0.05 * single
    assert limit - partition_sweep.healthy_drops((k - 1) / 8) >= 0.05 * single
    assert partition_sweep.first_costly_share(margin=0.0) == 4  # without a margin it turns on 106 against 105


def test_the_keep_that_matches_the_wall_within_the_margin_is_the_fewest_that_does() -> None:
    wall = partition_sweep.lesson_layouts()[1]["slowdown"].tracking_dropped
    limit = wall * (1 + partition_sweep.MARGIN)
    k = partition_sweep.keep_as_good_as_the_wall()
    assert partition_sweep.shed_days(k)["slowdown"].tracking_dropped <= limit
    assert partition_sweep.shed_days(k - 1)["slowdown"].tracking_dropped > limit
    assert partition_sweep.shed_days(k - 1)["slowdown"].tracking_dropped - limit >= 0.05 * wall
    assert limit - partition_sweep.shed_days(k)["slowdown"].tracking_dropped >= 0.05 * wall
    assert (
        partition_sweep.keep_as_good_as_the_wall(margin=0.0) == 11
    )  # without a margin it turns on 173 against 172


def test_the_margin_is_above_the_seeds_noise_for_both_counts_the_exercises_judge() -> None:
    single, wall = partition_sweep.seed_noise()
    assert len(single.counts) == len(wall.counts) == len(partition_sweep.NOISE_SEEDS) == 20
    assert single.counts[0] == partition_sweep.healthy_drops(0.0) == 105
    assert wall.counts[0] == partition_sweep.lesson_layouts()[1]["slowdown"].tracking_dropped == 172
    assert 0.1 < wall.share < single.share < partition_sweep.MARGIN
    assert partition_sweep.seed_noise() is partition_sweep.seed_noise()
