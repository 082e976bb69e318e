"""Choosing compartments: what isolation costs, soft partitions, shedding by priority, shuffle sharding,
a bulkhead beside a breaker, and sizing from what production shows (notebooks 08 and 09)."""
