"""Notebook 03 · Pool placement: lesson 003's live batches on 127.0.0.1."""
