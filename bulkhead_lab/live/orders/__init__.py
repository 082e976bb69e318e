"""Lesson 004 on real sockets: the Order Service, Payment and Inventory, the load from outside, what a
run measured; later notebooks extend it (a schedule, a client, a Payment). A run's services start in
:func:`.load.order_services`, the one driver (:func:`.load.drive`) sends its load, and :mod:`.reading`
reads what it measured. Which to call for which notebook:

- 04, the burst: :func:`.load.run_orders` of an :func:`.load.orders_setup` (services started elsewhere:
  :func:`.load.drive`), or side by side :func:`.load.orders_experiments`; read: :mod:`.reading.burst`;
- 05, a steady rate through an adaptive limit: :func:`.steady.run_adaptive`; read:
  :func:`.reading.adaptive.live_view`. A learner's limiter: :func:`.learners.limiter_run`;
- 06, retrying clients: :func:`.retrying.side_by_side`; read: :func:`.reading.retries.retry_checks`.
  A learner's budget: :func:`.learners.budget_run`;
- 07, the storm that stays: :func:`.metastable.run_storms`; read: :meth:`.reading.metastable.LiveStorm.read`.
"""
