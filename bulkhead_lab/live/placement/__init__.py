"""Lesson 003 on real sockets: where the caller's pool sits, and who pays for it."""
