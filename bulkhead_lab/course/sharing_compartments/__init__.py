"""Notebook 09 · Sharing compartments: soft partitions, shedding by priority, and a design of your own."""
