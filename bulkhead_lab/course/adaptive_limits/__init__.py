"""Notebook 05 · Adaptive limits"""
