"""A fixture store for the pictures: a week with known counts (crossing the switch to summer time
in Lisbon), six years of chats with four people, a journal, answered and open questions and a
timeline, saved through the real ingest path. The expected figures are spelled out here."""

from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

from core.service.admin import AdminFacet
from core.types import Conversation, Message, SourceDocument
from storage import questions as question_store
from storage import timeline as timeline_store

LISBON = ZoneInfo("Europe/Lisbon")
WEEK_FIRST, WEEK_LAST = date(2024, 3, 25), date(2024, 3, 31)  # summer time starts on Sunday the 31st
SECRET = "PINEAPPLE-42"  # in a message: must never reach a picture or its caption

# the week: (local day, hour, sender, text); "Ana" is the owner
WEEK_MESSAGES = [
    (25, 9, "Maya Costa", f"Morning! The code for the door is {SECRET}"),
    (25, 9, "Ana", "Thanks Maya"),
    (25, 20, "Teo Ramos", "Dinner with Maya on Friday?"),
    (26, 8, "Maya Costa", "Running later"),
    (26, 8, "Maya", "(from my phone) at the river"),  # another name of Maya Costa
    (26, 22, "Ana", "Teo said the will was read today"),  # "will": a word, not Will Stone
    (27, 12, "Mãe", "Ligas-me logo?"),
    (27, 12, "Ana", "Sim, às oito"),
    (27, 13, "Mãe", "Beijinhos"),
    (29, 19, "Σοφία Παππά", "Καλό Πάσχα!"),
    (29, 19, "Ana", "Thank you Σοφία"),
    (30, 23, "Teo Ramos", "Maya and Will Stone are coming too"),  # 23:30 local, the 30th
    (31, 10, "Maya Costa", "Happy Easter"),
    (31, 11, "Ana", "Happy Easter Maya and Teo"),
]
# (UTC time, sender, text): at the edges of the week in Lisbon, and at minutes that put them on
# another local day in zones off whole hours (+5:30, +5:45, -2:30)
UTC_MESSAGES = [
    (datetime(2024, 3, 31, 23, 30, tzinfo=timezone.utc), "Maya Costa", "Past midnight in Lisbon: 1 April"),
    (datetime(2024, 3, 24, 23, 59, tzinfo=timezone.utc), "Teo Ramos", "Still the 24th in Lisbon"),
    (datetime(2024, 3, 27, 18, 40, tzinfo=timezone.utc), "Mãe", "Already the 28th in Delhi and Kathmandu"),
    (datetime(2024, 3, 28, 2, 40, tzinfo=timezone.utc), "Mãe", "Just after midnight in St. John's"),
]
EXPECTED_DAYS = {  # local day in Lisbon: (yours, others)
    25: (1, 2), 26: (1, 2), 27: (1, 3), 28: (0, 1), 29: (1, 1), 30: (0, 1), 31: (1, 1),
}
EXPECTED_SENDERS = [("Maya Costa", 4), ("Mãe", 4), ("Teo Ramos", 2), ("Σοφία Παππά", 1)]  # ties by name
JOURNAL = "Long walk with Maya along the river. Teo Ramos called about the bakery; Will Stone too."
# named in: Maya 5 (Teo's two messages, the owner's two, the journal), Teo 3 (the owner's two, the
# journal), Will Stone 2 (Teo's message, the journal; "the will" is no one), Σοφία 1
EXPECTED_MENTIONS = [("Maya Costa", 5), ("Teo Ramos", 3), ("Will Stone", 2), ("Σοφία Παππά", 1)]

# six years of chat with four people, a few messages a month
HISTORY_PEOPLE = {"Maya Costa": (2019, 3), "Teo Ramos": (2021, 2), "Mãe": (2019, 1), "Will Stone": (2023, 1)}

TIMELINE = [
    ("2012", "Started at the university in Coimbra"),
    ("2014-06", "Met Maya at a friend's party"),
    ("2016", "Moved to Porto"),
    ("2017-03-14", "Broke my knee skiing"),
    ("2018-05", "Promoted to head baker"),
    ("2019-07-20", "Married Maya"),
    ("2020-03", "Moved to Lisbon"),
    ("2023-04", "Opened my own bakery"),
    ("2024-03-09", "Ferry to Tavira"),
    ("2019-13", "An impossible month"),  # the store may hold one: it is left out, nothing breaks
]
EXPECTED_KINDS = {"Started at the university in Coimbra": "work", "Met Maya at a friend's party": "people",
                  "Moved to Porto": "home", "Broke my knee skiing": "health", "Promoted to head baker": "work",
                  "Married Maya": "people", "Moved to Lisbon": "home", "Opened my own bakery": "work",
                  "Ferry to Tavira": "other"}


def _chat(key: str, messages: list[Message]) -> SourceDocument:
    return SourceDocument(kind="whatsapp", name=f"WhatsApp {key}", identity=f"fixture:{key}", messages=iter(messages),
                          conversation=Conversation(platform="whatsapp", key=key, name=f"WhatsApp {key}"))


def _week_messages() -> list[Message]:
    messages = [Message(sender=sender, text=text, time=datetime(2024, 3, day, hour, 30, tzinfo=LISBON),
                        is_owner=sender == "Ana") for day, hour, sender, text in WEEK_MESSAGES]
    messages += [Message(sender=sender, text=text, time=moment) for moment, sender, text in UTC_MESSAGES]
    return messages


def _history() -> list[Message]:
    messages = []
    for person, (since, per_month) in HISTORY_PEOPLE.items():
        for year in range(since, 2024):
            for month in range(1, 13):
                for i in range(per_month + (month % 3 == 0 and person == "Maya Costa")):
                    messages.append(Message(sender=person, text=f"note {i}",
                                            time=datetime(year, month, 10 + i, 18, tzinfo=LISBON)))
    return messages


async def fill(service: AdminFacet) -> None:
    """Everything above, saved through the memory; then import dates, questions and events set
    as the fixture needs them."""
    memory = service.memory
    await memory.save([_chat("week", _week_messages()), _chat("history", _history()),
                       SourceDocument(kind="markdown", name="journal.md", identity="fixture:journal", text=JOURNAL,
                                      time_start=datetime(2024, 3, 28, 21, tzinfo=LISBON))], index=False)
    await service.merge_people("Maya Costa", "Maya")
    conn = memory.conn
    async with conn.transaction():
        # imported during the week: the week chat and the journal; the history long before
        await conn.execute("UPDATE documents SET imported_at = '2024-03-27T10:00:00+00:00' "
                           "WHERE identity IN ('fixture:week', 'fixture:journal')")
        await conn.execute("UPDATE documents SET imported_at = '2023-01-01T10:00:00+00:00' "
                           "WHERE identity = 'fixture:history'")
        at = "2024-03-01T00:00:00Z"
        for i, text in enumerate(["Where did you grow up?", "Who taught you to bake?", "When did you meet Teo?",
                                  "What was Porto like?", "Do you still run?"]):
            qid = await question_store.add_question(conn, text=text, why="", priority=3, run_id=None, locators=[],
                                                    at=at)
            if i < 2:  # answered in the week
                await question_store.resolve(conn, qid, status="answered", resolution="",
                                             at=f"2024-03-2{6 + i}T12:00:00.000000Z")
            elif i == 2:  # answered before it
                await question_store.resolve(conn, qid, status="answered", resolution="", at="2024-02-01T12:00:00Z")
        for day, title in TIMELINE:
            await timeline_store.add_event(conn, date=day, title=title, detail="", locators=["doc1:0-10"],
                                           run_id=None, at=at)


def week_bounds() -> tuple[datetime, datetime]:
    return (datetime(2024, 3, 25, 12, tzinfo=LISBON), datetime(2024, 3, 31, 12, tzinfo=LISBON))


def history_messages_from(person: str, *, since_year: int = 2000) -> int:
    """Messages from `person` in the history chat from `since_year` on."""
    first, per_month = HISTORY_PEOPLE[person]
    years = 2024 - max(first, since_year)
    return years * 12 * per_month + (4 * years if person == "Maya Costa" else 0)
