"""Notebook 10's live side: real clients' default pools (``client_pools``), HTTP/2 (``h2``), a rate limit
beside a concurrency limit (``rate``), a fault-injecting proxy (``proxy``), the adaptive throttle
(``throttle``) and the capstone's run (``capstone``)."""
