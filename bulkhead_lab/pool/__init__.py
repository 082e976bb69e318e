"""Lesson 000's seeded model of a slot pool: its knobs, arrivals, rounds, the split sweep and the
lesson's own figures.
"""
