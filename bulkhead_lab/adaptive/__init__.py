"""Adaptive concurrency limits (ported from their sources) and the seeded pool they govern."""
