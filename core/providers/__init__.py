"""Concrete implementations of the ports in core/ports.py."""
