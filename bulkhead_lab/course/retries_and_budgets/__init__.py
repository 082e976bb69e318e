"""Notebook 06 · Retries meet bulkheads: amplification, backoff with jitter, retry budgets, storms."""
