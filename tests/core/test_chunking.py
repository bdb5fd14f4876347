from datetime import datetime, timedelta, timezone

import pytest

from core.memory.chunking import MAX_CHARS, OVERLAP, MessageChunker, prose_spans, render_message
from core.types import Chunk, Message

T0 = datetime(2024, 3, 5, 21, 7, tzinfo=timezone(timedelta(hours=1)))


def chunk_prose(text: str) -> list[Chunk]:
    return [Chunk(ordinal=i, char_start=s, char_end=e, text=text[s:e])
            for i, (s, e) in enumerate(prose_spans(text))]


def words(n: int, word: str = "lorem") -> str:
    return " ".join(f"{word}{i}" for i in range(n))


def test_offsets_point_back_into_the_text_exactly():
    text = "\n\n".join(f"Paragraph {i}. " + words(40) + "." for i in range(12))
    chunks = chunk_prose(text)
    assert len(chunks) > 3
    for chunk in chunks:
        assert text[chunk.char_start:chunk.char_end] == chunk.text
        assert len(chunk.text) <= MAX_CHARS


def test_cuts_prefer_a_blank_line_over_a_sentence_end():
    first = "A sentence. " * 40  # 480 chars, with sentence ends everywhere
    text = first + "\n\n" + "B sentence. " * 60
    first_chunk = chunk_prose(text)[0]
    assert first_chunk.text.rstrip() == first.rstrip()


def test_cuts_fall_back_to_sentence_end_then_space():
    text = "Alpha beta gamma. " * 80  # no newlines: sentence ends are the best boundary
    chunk = chunk_prose(text)[0]
    assert chunk.text.rstrip().endswith(".")
    no_sentences = words(400)
    chunk = chunk_prose(no_sentences)[0]
    assert chunk.text.endswith(" ")  # cut at a space: no word is split
    assert no_sentences[chunk.char_end - 1] == " "


def test_consecutive_chunks_overlap_so_no_phrase_is_lost_at_a_cut():
    text = words(600)
    spans = list(prose_spans(text))
    for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
        overlap = e1 - s2
        assert 0 < overlap <= OVERLAP
        assert text[s2 - 1] == " "  # the next chunk starts at a word
    assert spans[-1][1] == len(text)


def test_chunks_cover_the_whole_text():
    text = "  \n" + "\n\n".join(words(30, f"p{i}w") for i in range(30))
    covered = set()
    for s, e in prose_spans(text):
        covered.update(range(s, e))
    assert covered == set(range(3, len(text)))


def test_a_word_longer_than_a_chunk_is_cut_hard():
    text = "x" * 2000
    chunks = chunk_prose(text)
    assert [len(c.text) for c in chunks][0] == MAX_CHARS
    assert chunks[-1].char_end == 2000


def test_overlap_must_be_small():
    with pytest.raises(ValueError):
        list(prose_spans("abc", max_chars=100, overlap=60))


def msg(minutes: float, sender: str, text: str, kind="text") -> Message:
    return Message(sender=sender, text=text, time=T0 + timedelta(minutes=minutes), kind=kind)


def run(messages, **kw):
    chunker = MessageChunker(**kw)
    chunks, rendered = [], []
    for m in messages:
        done, r = chunker.add(m)
        chunks += done
        rendered.append(r)
    return chunks + chunker.finish(), rendered


def test_messages_render_with_their_own_wall_clock_time():
    assert render_message(msg(0, "Maya", "hi")) == "[2024-03-05 21:07] Maya: hi"
    assert render_message(msg(0, "", "Maya added Teo", kind="system")) == "[2024-03-05 21:07] · Maya added Teo"


def test_a_gap_of_more_than_30_minutes_starts_a_new_window():
    chunks, _ = run([msg(0, "Maya", "a"), msg(20, "Teo", "b"), msg(51, "Maya", "c")])
    assert [c.text for c in chunks] == [
        "[2024-03-05 21:07] Maya: a\n[2024-03-05 21:27] Teo: b",
        "[2024-03-05 21:58] Maya: c",
    ]
    assert chunks[0].speakers == ("Maya", "Teo")
    assert chunks[0].time_start == T0 and chunks[0].time_end == T0 + timedelta(minutes=20)


def test_a_long_window_splits_at_message_boundaries():
    messages = [msg(i, "Maya" if i % 2 else "Teo", words(20, f"m{i}w")) for i in range(20)]
    chunks, rendered = run(messages)
    assert len(chunks) > 1
    lines = [c.text.split("\n") for c in chunks]
    assert sum(len(l) for l in lines) == 20  # every message whole, in exactly one chunk
    assert all(len(c.text) <= MAX_CHARS for c in chunks)


def test_document_offsets_of_messages_and_chunks_agree():
    messages = [msg(i * 7, "Maya", f"message number {i} " + "word " * (i * 9)) for i in range(40)]
    chunks, rendered = run(messages)
    document = "\n".join(render_message(m) for m in messages)
    for r in rendered:
        assert document[r.char_start:r.char_end] == render_message(r.message)
    for c in chunks:
        assert document[c.char_start:c.char_end] == c.text


def test_a_message_longer_than_a_chunk_is_split_as_prose_on_its_own():
    long = msg(1, "Maya", "Sentence here. " * 150)
    chunks, rendered = run([msg(0, "Teo", "before"), long, msg(2, "Teo", "after")])
    assert chunks[0].text == "[2024-03-05 21:07] Teo: before"
    middle = chunks[1:-1]
    assert len(middle) >= 3 and all(c.speakers == ("Maya",) for c in middle)
    assert chunks[-1].text == "[2024-03-05 21:09] Teo: after"


def test_system_messages_are_not_speakers():
    chunks, _ = run([msg(0, "", "Maya created group", kind="system"), msg(1, "Teo", "hi")])
    assert chunks[0].speakers == ("Teo",)


@pytest.mark.parametrize("block_size", [1, 7, 100, 899, 901, 5000])
def test_streamed_prose_gives_the_same_chunks_in_any_block_size(block_size):
    import random

    rng = random.Random(block_size)
    parts = []
    for _ in range(300):
        parts.append(" ".join(f"w{rng.randint(0, 999)}" for _ in range(rng.randint(1, 30))))
        parts.append(rng.choice([". ", "\n", "\n\n", " ", "!\n   \n", "   "]))
    text = "  " + "".join(parts)
    blocks = [text[i:i + block_size] for i in range(0, len(text), block_size)]
    from core.memory.chunking import stream_prose_spans

    streamed = list(stream_prose_spans(iter(blocks)))
    assert [(s, e) for s, e, _ in streamed] == list(prose_spans(text))
    assert all(text[s:e] == t for s, e, t in streamed)


JOURNAL_2024 = [
    (None, "# Journal 2024\n\n"),
    ("2024-02-01", "## 2024-02-01\n\nLukas moved in today.\n\n"),
    ("2024-06-29", "## 2024-06-29\n\nMoving day again: Berlin to Lyon.\n\n"),
    ("2024-07-15", "## 2024-07-15\n\n"),
    ("2024-07-15", "Started French classes.\n"),
]


def test_a_dated_entry_is_chunked_on_its_own_with_the_title_before_the_first():
    from core.memory.chunking import stream_section_spans

    text = "".join(t for _, t in JOURNAL_2024)
    spans = list(stream_section_spans(JOURNAL_2024))
    # the whole journal fits one chunk of prose; by its days it is three, the title with the first
    assert len(list(prose_spans(text))) == 1
    assert [t.split("\n")[0] for _, _, t in spans] == ["# Journal 2024", "## 2024-06-29", "## 2024-07-15"]
    assert spans[2][2] == "## 2024-07-15\n\nStarted French classes.\n"  # one day's two pieces together
    assert all(text[s:e] == t for s, e, t in spans)
    assert spans[-1][1] == len(text)


def test_a_long_entry_is_cut_as_prose_and_text_without_days_as_before():
    from core.memory.chunking import stream_section_spans, stream_prose_spans

    long_day = words(400)
    sections = [("d1", "## d1\n" + long_day + "\n"), ("d2", "## d2\nshort\n")]
    spans = list(stream_section_spans(sections))
    first_day = len(sections[0][1])
    assert len([s for s in spans if s[1] <= first_day]) > 1  # the long day in several chunks
    assert not any(s < first_day < e for s, e, _ in spans)  # none across the change of day
    assert spans[-1][:2] == (first_day, first_day + len(sections[1][1]))
    undated = [(None, words(300)), (None, "\n\n" + words(300))]
    assert list(stream_section_spans(undated)) == list(stream_prose_spans(t for _, t in undated))
