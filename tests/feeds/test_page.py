"""The page's import view says what keeps the store current: mail accounts and watched paths, with
their last read and error."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.feeds.facade import Feeds
from tests.server.test_page import logged_in
from tests.server.conftest import running_server

pytestmark = pytest.mark.asyncio


async def test_the_import_view_lists_the_feeds(settings, tmp_path: Path):
    watched = tmp_path / "inbox"
    watched.mkdir()
    async with running_server(settings, tmp_path, seeded=False) as server:
        server.parts.feeds = Feeds(server.service.memory, secrets=lambda _name: None)
        await server.service.feeds.add_watch(watched)
        (watched / "broken.pdf").write_bytes(b"%PDF-1.4 not a pdf")
        await server.service.feeds.watch_pass()
        async with logged_in(server) as http:
            page = (await http.get("/imports")).text
    assert "Kept current" in page and f"Watched <strong>{watched}</strong>" in page
    assert "broken.pdf" in page and "0 new" in page
