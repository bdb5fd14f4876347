"""The counts behind the pictures: local days from the zone's offsets, one sender whatever the
case, and read from the activity index alone (what keeps ten years under two seconds)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from zoneinfo import ZoneInfo

from core.pictures.gather import utc_offsets
from storage import activity

LISBON = ZoneInfo("Europe/Lisbon")


def test_offsets_change_at_the_second_the_clocks_do():
    offsets = utc_offsets(LISBON, datetime(2024, 1, 1, tzinfo=LISBON), datetime(2024, 12, 31, tzinfo=LISBON))
    assert offsets == [("2024-01-01T00:00:00Z", 0), ("2024-03-31T01:00:00Z", 3600), ("2024-10-27T01:00:00Z", 0)]
    kathmandu = ZoneInfo("Asia/Kathmandu")
    assert utc_offsets(kathmandu, datetime(2024, 1, 1, tzinfo=kathmandu), datetime(2024, 2, 1, tzinfo=kathmandu)) \
        == [("2023-12-31T18:15:00Z", 20700)]


async def test_a_sender_is_one_whatever_the_case_and_days_are_local(pictured):
    conn = pictured.memory.conn
    async with conn.transaction():
        await conn.executemany(
            "INSERT INTO messages (document_id, platform, conversation_key, sender, is_owner, time, kind, text, "
            "dedup_key, char_start, char_end) VALUES (1, 'whatsapp', 'x', ?, 0, ?, 'text', '', ?, 0, 0)",
            [("TEO RAMOS", "2024-03-30T23:30:00Z", "k1"), ("teo ramos", "2024-03-31T00:30:00Z", "k2")])
    totals = await activity.sender_totals(conn, since="2024-03-30T00:00:00Z", until="2024-03-31T23:59:59Z")
    assert [t.messages for t in totals if t.sender.lower() == "teo ramos"] == [3]
    days = await activity.messages_per_day(
        conn, since="2024-03-30T00:00:00Z", until="2024-03-31T23:59:59Z", senders=["Teo Ramos"],
        offsets=[("2024-03-30T00:00:00Z", 0), ("2024-03-31T00:00:00Z", 3600)])
    # 23:30 UTC on the 30th is 23:30 there; 00:30 UTC on the 31st, at +1, is 01:30 on the 31st
    per_day = Counter()
    for d in days:
        per_day[d.day] += d.messages
    assert per_day == {"2024-03-30": 2, "2024-03-31": 1}
    assert {d.sender for d in days} == {"Teo Ramos", "TEO RAMOS", "teo ramos"}  # each spelling, for the caller


async def test_the_counts_read_the_activity_index_only(pictured):
    conn = pictured.memory.conn
    plans = []
    for sql in ("SELECT sender, count(*) FROM messages WHERE time >= '' AND time <= 'z' AND is_owner = 0 "
                "AND kind != 'system' AND sender != '' AND platform NOT IN ('biographer') "
                "GROUP BY sender COLLATE NOCASE",
                "SELECT date(time, '+0 seconds'), sender, is_owner, count(*) FROM messages WHERE time >= '' "
                "AND time <= 'z' AND kind != 'system' AND platform NOT IN ('biographer') "
                "AND sender COLLATE NOCASE IN ('Maya Costa') GROUP BY 1, 2, 3"):
        plans.append(" ".join(row[-1] for row in await conn.execute_fetchall("EXPLAIN QUERY PLAN " + sql)))
    assert all("COVERING INDEX messages_activity" in plan for plan in plans), plans
