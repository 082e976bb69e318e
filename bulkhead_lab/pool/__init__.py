"""Lesson 000's seeded model of a slot pool: its knobs (``params``), arrivals, rounds, the split
sweep and the lesson's own figures and text (``lesson000``).
"""
