"""A filled fixture store (tests/pictures/store.py) and its CLI facet, with no model at all."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.service.admin import AdminFacet
from core.service.parts import Parts
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder
from tests.pictures.store import fill


@pytest.fixture
async def pictured(tmp_path: Path) -> AsyncIterator[AdminFacet]:
    async with memory_at(tmp_path / "data", HashEmbedder(), owner="Ana") as memory:
        service = AdminFacet(Parts(memory=memory, llm=None))  # pictures never need a model
        await fill(service)
        yield service
