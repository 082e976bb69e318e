"""Notebook 01 · Little's Law: how big should a bulkhead be?"""
