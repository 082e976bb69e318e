"""Notebook 07 · Timeouts, queues and the storm that stays."""
