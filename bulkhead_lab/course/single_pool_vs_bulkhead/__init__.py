"""Notebook 02 · One pool or a bulkhead: lesson 000's seeded simulations."""
