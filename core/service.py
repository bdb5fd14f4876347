"""The one facade the front ends call. It grows with the product: the memory core now; the
biographer (ask, profile, questions, reports) adds its methods here."""

from __future__ import annotations

from core.memory import Memory


class Service:
    def __init__(self, *, memory: Memory) -> None:
        self.memory = memory
