"""Where a query's words stand in a passage (the page marks them): as the keyword index matches
words, not as a substring search would. Expected spans written by hand."""

from core.memory.highlight import query_spans


def marked(text: str, query: str) -> list[str]:
    return [text[start:end] for start, end in query_spans(text, query)]


def test_words_are_matched_by_stem_and_stop_words_are_not_marked():
    text = "What about my knees? The knee hurts; kneeling is fine, and Knee-high socks."
    assert marked(text, "what about my knee") == ["knees", "knee", "Knee"]  # kneeling stems apart (kneel)


def test_other_scripts_by_their_own_stemmer_and_unspaced_runs_wherever_they_stand():
    assert marked("Ищу работу, нашёл работы", "работа") == ["работу", "работы"]
    assert marked("我们去东京塔，东京很大", "东京") == ["东京", "东京"]


def test_spans_index_the_raw_text_so_markup_in_it_is_never_split():
    text = '<b title="knee">knee</b> &amp; knee'
    spans = query_spans(text, "knee")
    assert [text[s:e] for s, e in spans] == ["knee", "knee", "knee"]
    assert all(text[s - 1] in '">; ' for s, _ in spans)  # whole words only, never inside "&amp;"
    assert query_spans(text, "amp") == [(text.index("amp"), text.index("amp") + 3)]  # the text's own word
    assert query_spans("", "knee") == [] and query_spans("knee", "") == []
