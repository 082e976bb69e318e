"""Serving on 127.0.0.1: the loopback server, its guards, and a dependency that counts itself."""
