"""Timeouts, queues and the storm that stays: lesson 000's seeded arrivals against a dependency with
workers and a queue, callers with a timeout who retry, a slowdown that ends (notebook 07).

- :mod:`.settings`: what a run is made of (the dependency, the callers, their bulkhead, the trigger);
- :mod:`.calls`: one call, from the round it is made to the round it ends;
- :mod:`.dependency`: the dependency's round: workers, its queue, what it drops;
- :mod:`.callers`: the callers' round: a deadline on every call, retries (notebook 06's policies);
- :mod:`.bulkhead`: the callers' bulkhead: places, a line, refusal at once; an adaptive limit;
- :mod:`.rounds`: one run, round by round, and what each round counted;
- :mod:`.recovery`: how long goodput stays down after the trigger ends;
- :mod:`.fixes`: the fixes practitioners use, each one change to a setup;
- :mod:`.timeouts`: Little's Law with a timeout, and the longest queue a timeout allows;
- :mod:`.knee`: adaptive limits against a dependency whose latency grows with load;
- :mod:`.design`: the right answers behind the exercises, as seeded runs.

Pure: no I/O, no plotting; seeded.
"""
