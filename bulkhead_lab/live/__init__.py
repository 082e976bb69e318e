"""Real HTTP on 127.0.0.1 (*live* means real sockets on this machine): counting dependencies,
caller pools, a bulkhead, and the scenarios of lesson 003 (pool placement) and lesson 004
(Order Service).

:mod:`.net` serves on loopback (:mod:`.net.server`, one line per request aiohttp refuses:
:mod:`.net.requestlog`) and holds the counting dependency (:mod:`.net.dependency`);
:mod:`.bulkhead` is the caller's bulkhead; :mod:`.placement` is lesson 003 (caller pools and a
batch through them); :mod:`.orders` is lesson 004 (the Order Service, its settings and pools, the
burst load of :mod:`.orders.load`, the steady load of :mod:`.orders.steady`, what a run measured
and concluded); :mod:`.serve` holds the ``serve-pools`` and ``serve-orders`` commands.
"""
