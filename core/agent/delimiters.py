"""Source text goes to the model inside <source ...> ... </source> delimiters, as data. Nothing a
source holds (a sender's display name, a file name, a message) may close that delimiter, open
another one, or forge the markers of a chat template, whatever its spelling: upper case, spaces or
invisible characters inside the tag (`</ source >`), HTML entities (`&lt;/source&gt;`),
full-width or other look-alike angle brackets, or a chat template's special tokens
(`<|im_start|>`), which a local server may read as the real thing."""

from __future__ import annotations

import html
import re
import unicodedata

# the tags that mean something to the model: ours, and those of common chat templates
RESERVED_TAGS = ("source", "profile", "section", "system", "user", "assistant", "tool_call", "tool_response",
                 "tools", "tool", "function", "instructions",
                 "conversation", "items")  # the ledger's extraction windows
_GAP = r"[\s\u200b-\u200d\u2060\ufeff]*"  # spaces and zero-width characters a model reads past
_LESS_THAN = r"(?:<|&lt;?|&#0*60;?|&#x0*3c;?|‹|〈|⟨|❮|˂)"  # after folding (＜ and ﹤ fold to <)
_DELIMITER_RE = re.compile(rf"{_LESS_THAN}(?={_GAP}/?{_GAP}(?:{'|'.join(RESERVED_TAGS)})\b)", re.IGNORECASE)
# <|im_start|>, <|eot_id|>, <｜end▁of▁sentence｜>: the special tokens of chat templates
_SPECIAL_TOKEN_RE = re.compile(rf"{_LESS_THAN}{_GAP}\|")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")
NEUTRAL = "["  # what a defused "<" becomes: still readable, and no model reads "[/source>" as our tag


def _fold(char: str) -> str:
    """One character's compatibility form when that is one character too (＜ -> <, ｜ -> |), so
    positions in the folded text are positions in the original."""
    folded = unicodedata.normalize("NFKC", char)
    return folded if len(folded) == 1 else char


def neutralise(text: str) -> str:
    """The text with the opener of every reserved tag and special token defused; all else kept."""
    folded = "".join(map(_fold, text))
    spans = [(m.start(), m.end(), NEUTRAL) for m in _DELIMITER_RE.finditer(folded)]
    spans += [(m.start(), m.end(), NEUTRAL + "¦") for m in _SPECIAL_TOKEN_RE.finditer(folded)]
    if not spans:
        return text
    out, cursor = [], 0
    for start, end, replacement in sorted(spans):
        if start < cursor:
            continue
        out += [text[cursor:start], replacement]
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def attribute(value: str) -> str:
    """A value safe inside double quotes: one line, delimiters defused, then HTML-escaped."""
    return html.escape(" ".join(_CONTROL_RE.sub(" ", neutralise(value)).split()), quote=True)


def source_block(locator: str, document: str, when: str, text: str, **attrs: str) -> str:
    """One source, delimited; every attribute and the text itself neutralised."""
    extra = "".join(f' {key}="{attribute(value)}"' for key, value in attrs.items() if value)
    return (f'<source locator="{attribute(locator)}" document="{attribute(document)}" '
            f'when="{attribute(when)}"{extra}>\n{neutralise(text)}\n</source>')
