"""Lesson 004 on real sockets: the Order Service, Payment and Inventory, the load from outside, what a
run measured.
"""
