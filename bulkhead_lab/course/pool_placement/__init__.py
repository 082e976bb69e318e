"""Notebook 03 · Where the pool sits: pool placement on real sockets."""
