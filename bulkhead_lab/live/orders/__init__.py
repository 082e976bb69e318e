"""Lesson 004 on real sockets: the Order Service, Payment and Inventory, the load from outside, what a
run measured; later notebooks extend it (a schedule, a client, a Payment). One way to run:
:func:`.load.run_orders` starts the services (:func:`.load.order_services`, where a run too long or
too big for ``ulimit -n`` is refused in one line), sends a schedule with the one driver
(:func:`.load.drive`) and stops them; :mod:`.reading` reads what it measured. Per notebook:

- 04, the burst: :func:`.load.run_orders` of an :func:`.load.orders_setup` (a cell's short form of the
  settings and the load), or several side by side: :func:`.load.orders_experiments`; read:
  :mod:`.reading.burst`;
- 05, a steady rate (:class:`.steady.SteadyLoad`) through an adaptive limit
  (:class:`.adaptive.AdaptiveSettings`); read: :func:`.reading.adaptive.live_view`. A learner's
  limiter: :func:`.learners.limiter_run`;
- 06, retrying clients: :func:`.retrying.side_by_side`; read: :func:`.reading.retries.retry_checks`.
  A learner's budget: :func:`.learners.budget_run`;
- 07, the storm that stays: :func:`.metastable.run_storms`; read: :meth:`.reading.metastable.LiveStorm.read`;
- 10, a client-side throttle: :mod:`bulkhead_lab.live.stack.throttle` runs :func:`.load.run_orders` with
  its own client and load.
"""
