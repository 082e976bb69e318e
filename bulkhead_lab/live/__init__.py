"""Real HTTP on 127.0.0.1: counting dependencies, caller pools, a bulkhead, and the
scenarios of lesson 003 (pool placement) and lesson 004 (Order Service).

:mod:`.server` binds and serves on loopback; :mod:`.dependency` is the counting service;
:mod:`.pools` and :mod:`.bulkhead` are the caller's side; :mod:`.placement` is lesson 003;
:mod:`.order_service`, :mod:`.load` and :mod:`.order_checks` are lesson 004; :mod:`.serve`
holds the ``serve-pools`` and ``serve-orders`` commands.
"""
