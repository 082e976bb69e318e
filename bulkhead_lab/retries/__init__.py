"""Retry policies and budgets, and the seeded storm of retrying callers."""
