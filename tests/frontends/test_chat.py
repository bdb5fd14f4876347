"""Plain text through the real adapter: typing indicator, long answers split on paragraphs, one run at a time."""

from __future__ import annotations


from bot.render import TELEGRAM_LIMIT, split_message
from tests.frontends.conftest import OWNER, running_bot, telegram_settings
from tests.frontends.fakes import scripted


def test_split_message_cuts_at_paragraphs_and_keeps_everything():
    paragraphs = [f"Paragraph {n}: " + "word " * 150 for n in range(12)]
    text = "\n\n".join(p.strip() for p in paragraphs)
    pieces = split_message(text, TELEGRAM_LIMIT)
    assert len(pieces) > 1 and all(len(p) <= TELEGRAM_LIMIT for p in pieces)
    assert all(p.startswith("Paragraph") for p in pieces)
    assert " ".join(" ".join(pieces).split()) == " ".join(text.split())
    assert split_message("x" * 5000, 2000) == ["x" * 2000, "x" * 2000, "x" * 1000]


async def test_question_answered_split_when_long_with_typing(tmp_path, telegram_api):
    long_answer = "\n\n".join(f"In {1990 + n} you lived in Porto [1]. " + "More detail. " * 60 for n in range(10))
    long_answer += "\n\nSources:\n[1] WhatsApp with Maya, 2024-03-05 · doc1:0-120"

    def biographer(memory, **options):
        return scripted(memory, **options, answers=[long_answer])

    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url),
                           service_factory=biographer) as (_, facets):
        await telegram_api.push(user=OWNER, text="Where did I live in the nineties?")
        await telegram_api.wait_for(lambda: "doc1:0-120" in "".join(telegram_api.texts()))
    texts = telegram_api.texts()
    assert len(texts) >= 2 and all(len(t) <= TELEGRAM_LIMIT for t in texts)
    assert texts[-1].endswith("[1] WhatsApp with Maya, 2024-03-05 · doc1:0-120")
    assert facets.admin.biographer.asks == [("Where did I live in the nineties?", f"telegram:{OWNER['id']}")]
    assert telegram_api.sent("sendChatAction")[0].params["action"] == "typing"


async def test_second_question_waits_for_the_first_with_a_note(tmp_path, telegram_api):
    def biographer(memory, **options):
        return scripted(memory, **options, answers=["First answer.", "Second answer."], slow=0.5)

    async with running_bot(telegram_settings(tmp_path / "data", telegram_api.url),
                           service_factory=biographer):
        await telegram_api.push(user=OWNER, text="first?")
        await telegram_api.wait_for(lambda: telegram_api.sent("sendChatAction"))
        await telegram_api.push(user=OWNER, text="second?")
        await telegram_api.wait_for(lambda: "Second answer." in telegram_api.texts())
    texts = telegram_api.texts()
    assert texts.index("First answer.") < texts.index("Second answer.")
    assert any(t.startswith("One moment") for t in texts)
