"""Where the pool sits in the code, counted from the running package's source as lesson 003's
``measure.mjs`` counts ``services.mjs``: the pool definition, its call sites, how many places
define a pool (:func:`code_cost`, :func:`code_facts`)."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path

from bulkhead_lab.live.placement import pools as pools_module
from bulkhead_lab.live.placement.batch import outbound

MARKER = "# >>> pool definition"


def pool_definition_source() -> str:
    """The marked pool-definition block of :mod:`~bulkhead_lab.live.placement.pools`, as it runs."""
    source = inspect.getsource(pools_module)
    match = re.search(r"(    # >>> pool definition.*?# <<<)", source, re.S)
    if match is None:
        raise RuntimeError("pools.py has lost its '# >>> pool definition' marker")
    return inspect.cleandoc(match.group(1))


def call_sites() -> list[str]:
    """Each outbound ``call(port, "/path", pool)`` expression in :func:`~.batch.outbound`, as written."""
    body = inspect.getsource(outbound)
    found = []
    for match in re.finditer(r'\bcall\([\w.]+, "', body):
        depth, end = 0, match.start()
        for end in range(match.start() + len("call"), len(body)):
            depth += {"(": 1, ")": -1}.get(body[end], 0)
            if depth == 0:
                break
        found.append(" ".join(body[match.start() : end + 1].split()))
    return found


def call_sites_source() -> str:
    """The call sites, one a line: the pool is the last argument, or ``SKIPPED`` (no pool at all)."""
    return "\n".join(call_sites())


def definitions() -> int:
    """How many marked pool definitions the live package's modules hold (the lesson's "in one place")."""
    folder = Path(inspect.getfile(pools_module)).parents[1]  # bulkhead_lab/live/
    return sum(
        line.strip().startswith(MARKER)
        for path in sorted(folder.rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
    )


@dataclass(frozen=True)
class CodeCost:
    """Lesson 003's last line: the pool definition's size and what the call sites carry."""

    block_lines: int
    call_sites: int
    pool_for_expressions: int


def code_cost() -> CodeCost:
    """Count, as measure.mjs does, the lines inside the pool definition and :func:`~.batch.outbound`'s
    call sites and ``pool_for(port)`` expressions."""
    pool_for = re.findall(r"\bpool_for\([\w.]+\)", inspect.getsource(outbound))
    return CodeCost(len(pool_definition_source().splitlines()[1:-1]), len(call_sites()), len(pool_for))


@dataclass(frozen=True)
class CodeFacts:
    """The code cost, how many places define a pool, and whether any call site names a placement."""

    cost: CodeCost
    places: int
    call_sites_name_a_placement: bool


def code_facts() -> CodeFacts:
    """Lesson 003's last line, counted from this package's own source."""
    names_placement = any(re.search(r"single|separate", site) for site in call_sites())
    return CodeFacts(code_cost(), definitions(), names_placement)
