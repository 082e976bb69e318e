"""Notebook 07's two live storms side by side, cancelled at random points (Kernel > Interrupt
cancels the cell's task): both stop, nothing prints and nothing stays listening, as in
test_interrupts's runs; and the one bar had counted orders by then."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.live


def test_side_by_side_storms_cancelled_at_random_points_print_nothing_and_leave_no_port() -> None:
    rng = random.Random(23)
    delays = [round(rng.uniform(1.5, 5.0), 3) for _ in range(3)]  # both runs under way, neither done
    script = textwrap.dedent(
        f"""
        import asyncio
        from loopback import listening_ports
        from bulkhead_lab.live.orders.metastable import run_storms

        async def main():
            before = listening_ports()
            for delay in {delays!r}:
                seen = []
                task = asyncio.create_task(run_storms(on_progress=lambda done, total: seen.append(done)))
                await asyncio.sleep(delay)
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    print("cancelled", listening_ports() == before, len(seen) > 0)
            await asyncio.sleep(0.5)  # anything left behind would wake and complain now

        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=Path(__file__).parent
    )
    assert done.stderr == ""
    assert done.stdout.splitlines() == ["cancelled True True"] * len(delays)
