"""Redraws tests/pictures/reference/*.png from the fixture store, after a deliberate change to
the drawing: `python -m tests.pictures.make_references`. Look at every image before committing."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from core.service.admin import AdminFacet
from core.service.parts import Parts
from tests.core.helpers import memory_at
from tests.fakes.embedder import HashEmbedder
from tests.pictures.store import fill, week_bounds

REFERENCE = Path(__file__).parent / "reference"


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with memory_at(Path(folder), HashEmbedder(), owner="Ana") as memory:
            service = AdminFacet(Parts(memory=memory))
            await fill(service)
            since, until = week_bounds()
            for kind in ("week", "timeline", "people"):
                picture = await service.pictures.make(kind, **(dict(since=since, until=until) if kind == "week" else {}))
                (REFERENCE / f"{kind}.png").write_bytes(picture.png)
                print(REFERENCE / f"{kind}.png")


if __name__ == "__main__":
    asyncio.run(main())
