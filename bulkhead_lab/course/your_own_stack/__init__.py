"""Notebook 10 · Your own stack: the walls real clients and proxies already have, measured live, the
same walls in configuration, client-side throttling, and a bulkhead proven with an injected fault."""
