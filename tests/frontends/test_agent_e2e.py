"""The real facets and model client (against the scripted OpenAI server) behind the real Telegram adapter."""

from __future__ import annotations

from datetime import datetime, timezone

from core.providers.openai_chat import OpenAIChat
from core.service.parts import Parts
from tests.fakes.openai_server import FakeOpenAIServer
from tests.frontends.conftest import OWNER, running_bot, telegram_settings

MAYA = {"id": 777, "is_bot": False, "first_name": "Maya"}


async def test_question_answered_with_checked_citations_and_split(tmp_path, telegram_api):
    with FakeOpenAIServer() as model:
        llm = OpenAIChat(base_url=model.base_url, api_key="test-key",
                         models={"chat": "fake-chat", "analysis": "fake-analysis"}, timeout=10, max_retries=0)
        try:
            async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url),
                                   service_factory=lambda memory, **options: Parts(memory=memory, llm=llm, **options)) as (_, facets):
                when = int(datetime(2024, 5, 3, 18, tzinfo=timezone.utc).timestamp())
                await telegram_api.push(user=OWNER, text="The ferry to Tavira leaves Saturday at nine",
                                        forward_origin={"type": "user", "date": when, "sender_user": MAYA})
                await telegram_api.wait_for(lambda: telegram_api.texts())
                hit = (await facets.admin.memory.search("ferry Tavira", limit=1))[0]
                model.call("search", {"query": "ferry Tavira"})
                long_text = "\n\n".join(f"Part {n}: " + "You planned the trip carefully. " * 30 for n in range(6))
                model.reply(f"The ferry left on Saturday at nine [{hit.locator}].\n\n{long_text}")
                await telegram_api.push(user=OWNER, text="When did the ferry to Tavira leave?")
                await telegram_api.wait_for(lambda: "Sources:" in "".join(telegram_api.texts()), timeout=30)
        finally:
            await llm.close()
    replies = telegram_api.texts()[1:]
    assert len(replies) >= 2 and all(len(r) <= 4096 for r in replies)
    assert replies[0].startswith("The ferry left on Saturday at nine [1].")
    assert f"[1] Forwarded from Maya, 2024-05-03 · {hit.locator}" in replies[-1]
