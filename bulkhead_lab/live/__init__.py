"""Real HTTP on 127.0.0.1: counting dependencies, caller pools, a bulkhead, and the
scenarios of lesson 003 (pool placement) and lesson 004 (Order Service)."""
