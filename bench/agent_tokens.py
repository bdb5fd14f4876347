"""Token cost of a typical answer and a typical import analysis, measured with the fake
OpenAI-compatible server's recorded usage (4 characters per token of what the model reads and
writes: an estimate, not a provider's tokenizer). Prints a Markdown table for the README.

    python -m bench.agent_tokens   (from the repository root)
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.compose import open_facets
from core.config import Settings
from core.providers.openai_chat import OpenAIChat
from core.types import Conversation, Message, SourceDocument
from tests.fakes.embedder import HashEmbedder
from tests.fakes.openai_server import FakeOpenAIServer

ZONE = ZoneInfo("Europe/Lisbon")
WORDS = ("coffee Maya Porto bakery flat lease sea walk work tired happy tomorrow weekend train "
         "dinner mother call book river music plan money doctor gym rain sun friend late early").split()


def chat_export(n: int, seed: int = 1) -> SourceDocument:
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, 9, 0, tzinfo=ZONE)
    messages = [Message(sender=rng.choice(["Ana", "Maya"]), is_owner=False,
                        text=" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 18))),
                        time=start + timedelta(minutes=7 * i)) for i in range(n)]
    return SourceDocument(kind="whatsapp", name="WhatsApp with Maya", identity=f"bench:{seed}",
                          conversation=Conversation("whatsapp", "maya", "WhatsApp with Maya", ("Ana", "Maya")),
                          messages=iter(messages))


FILLED_PROFILE = "\n".join(f"- fact {i}: {' '.join(WORDS[i % 20: i % 20 + 8])} [doc1:{i * 100}-{i * 100 + 90}]"
                           for i in range(60))


async def measure() -> list[tuple[str, int, int, int]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        settings = Settings(data_dir=Path(tmp), timezone="Europe/Lisbon", owner_aliases=["Ana"])
        llm = OpenAIChat(base_url=server.base_url, api_key="k", models={"chat": "fake"}, max_retries=0)
        async with open_facets(settings, llm=llm, embedder=HashEmbedder()) as facets:
            service = facets.admin
            await service.memory.save([chat_export(3000)])

            def take(label: str) -> None:
                used = server.usage[:]
                server.usage.clear()
                rows.append((label, len(used), sum(u["prompt_tokens"] for u in used),
                             sum(u["completion_tokens"] for u in used)))

            async def typical_answer(conversation: str) -> None:
                hits = await service.memory.search("bakery lease", limit=1)
                server.call("search", {"query": "moving to Porto, the lease"})
                server.call("read_source", {"locator": str(hits[0].locator), "window": 600})
                server.reply("You signed the lease in March 2024, after weeks of talking it over with Maya "
                             f"[{hits[0].locator}]. " * 3)
                await service.biographer.ask("When did I decide to move to Porto, and who did I talk it over with?",
                                  conversation=conversation)

            # warm the chat tail with six earlier messages
            for i in range(3):
                server.call("grep", {"pattern": f"earlier {i}"})
                server.reply(f"An earlier answer, about two sentences long, number {i}. " * 2)
                await service.biographer.ask(f"an earlier question {i}", conversation="bench")
            server.usage.clear()
            await typical_answer("bench")
            take("answer: search + read + cited reply, empty profile, 6-message tail")

            book = service.biographer.book
            await book.edit("", FILLED_PROFILE, section="Identity")
            await typical_answer("bench")
            take("the same with a filled profile (60 cited facts, ~5,000 characters)")

            # one analysis batch (24,000 characters of new chat) with 8 tool calls in 4 replies
            for _ in range(4):
                server.calls([("add_timeline_event", {"date": "2024-01", "title": "x", "locators": ["doc1:0-100"]}),
                              ("add_open_question", {"question": f"Who is {random.random()}?", "priority": 3})])
            server.reply("Added two events and four questions.")
            await service.biographer.analyze(max_batches=1)
            take("import analysis: one 24,000-character batch, 8 tool calls, filled profile")
        await llm.close()
    return rows


def main() -> None:
    rows = asyncio.run(measure())
    print("| run | requests | prompt tokens | completion tokens |")
    print("|---|---:|---:|---:|")
    for label, requests, prompt, completion in rows:
        print(f"| {label} | {requests} | {prompt:,} | {completion:,} |")


if __name__ == "__main__":
    main()
