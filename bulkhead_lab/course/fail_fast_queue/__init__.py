"""Notebook 04 · A fail-fast queue: lesson 004's Order Service, live on 127.0.0.1."""
