"""Notebook 08 · Choosing compartments: what a wall costs, which wall, and how to watch it."""
