"""An e-mail's own words: its text part decoded through mislabelled charsets, HTML turned into
text, and the quoted reply chain cut (a forwarded e-mail is kept: it is the point of a forward).
"""

from __future__ import annotations

import re
from email.message import Message as EmailMessage

_LATIN_LABELS = {"us-ascii", "ascii", "iso-8859-1", "latin-1", "latin1", "windows-1252", "cp1252"}
# Mailers label text with a charset its bytes outgrow: GBK text as gb2312, Windows Korean as
# euc-kr. Decode with the superset the label has come to mean, as browsers do (WHATWG Encoding).
_SUPERSETS = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "chinese": "gb18030",
              "euc-kr": "cp949", "ks_c_5601-1987": "cp949", "shift_jis": "cp932", "sjis": "cp932",
              "x-sjis": "cp932", "big5": "big5hkscs", "tis-620": "cp874", "iso-8859-11": "cp874",
              "iso-8859-9": "cp1254", "iso-8859-8-i": "iso-8859-8"}


def superset_charset(charset: str) -> str:
    return _SUPERSETS.get(charset.lower(), charset)


# where a reply's quotation of the earlier mail begins
_QUOTE_HEADERS = re.compile(
    r"^(?:On|Am|Le|El|Il|Em|Op) [^\n]{0,200}(?:\n[^\n]{0,200})?"
    r"(?:wrote|schrieb|a écrit|escribió|ha scritto|escreveu|schreef)[^\n]{0,120}:\s*$"
    r"|^-{2,} ?(?:Original Message|Ursprüngliche Nachricht|Message d'origine) ?-{2,}\s*$"
    r"|^_{10,}\s*\n(?:From|Von|De): ",
    re.M | re.I,
)



def decode_part(part: EmailMessage) -> str:
    """A text part's words, surviving mislabelled charsets (UTF-8 declared as ASCII/Latin-1)."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(payload or "")
    declared = superset_charset((part.get_content_charset() or "utf-8").lower())
    order = ["utf-8", declared, "cp1252"] if declared in _LATIN_LABELS else [declared, "utf-8"]
    for charset in order:
        try:
            return payload.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
    # a few broken bytes (a character cut where a line was wrapped) in otherwise good text: keep
    # the text in its own charset and mark only those bytes, rather than misread it all as cp1252
    for charset in order:
        try:
            return payload.decode(charset, errors="replace")
        except LookupError:
            continue
    return payload.decode("cp1252", errors="replace")


# Apple Mail's "Begin forwarded message:" in the languages Mail ships (the list kept by
# crisp-oss/email-forward-parser), and Gmail's separator: what follows is the forwarded e-mail,
# which is the point of a forward, not quoted history to cut.
_FORWARD_WORDS = (
    "Begin forwarded message", "Anfang der weitergeleiteten Nachricht", "Začátek přeposílané zprávy",
    "Start på videresendt besked", "Inicio del mensaje reenviado", "Välitetty viesti alkaa",
    "Début du message réexpédié", "Début du message transféré", "Započni proslijeđenu poruku",
    "Továbbított levél kezdete", "Inizio messaggio inoltrato", "Begin doorgestuurd bericht",
    "Videresendt melding", "Początek przekazywanej wiadomości", "Início da mensagem reencaminhada",
    "Início da mensagem encaminhada", "Începe mesajul redirecționat",
    "Начало переадресованного сообщения", "Začiatok preposlanej správy", "Vidarebefordrat mejl",
    "İleti başlangıcı", "Початок листа, що пересилається",
)
_FORWARD_LINE = re.compile(
    rf"^(?P<quotes>(?:> ?)*)[ \t]*(?:(?:{'|'.join(map(re.escape, _FORWARD_WORDS))})[ \t]?:"
    r"|-{5,}[ \t]*Forwarded message[ \t]*-{5,})[ \t]*$",
    re.M | re.I,
)


def html_to_text(html: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "head"]):
        tag.decompose()
    # Gmail and Outlook wrap quoted replies in these; the quoted part is another e-mail's words,
    # unless it is a forward (Apple Mail and Gmail wrap those the same way), which is kept
    for tag in soup.select("blockquote, .gmail_quote, #appendonsend, #divRplyFwdMsg"):
        if tag.decomposed:
            continue
        first = next(iter(tag.stripped_strings), "")
        if _FORWARD_LINE.match(first):
            tag.unwrap()
        else:
            tag.decompose()
    lines = (" ".join(line.split()) for line in soup.get_text("\n").split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _unquote(text: str, levels: int) -> str:
    """Remove `levels` of `>` quoting from the start of each line."""
    if not levels:
        return text
    return re.sub(rf"^(?:> ?){{1,{levels}}}", "", text, flags=re.M)


def _find_forward(text: str) -> re.Match[str] | None:
    """The first forward marker line. Every marker ends in a colon, or is Gmail's dashed line,
    so only those lines are tried: running the regex over every body was a tenth of an mbox
    import's time."""
    candidates: list[int] = []
    at = text.find("Forwarded message")
    if at >= 0:
        candidates.append(text.rfind("\n", 0, at) + 1)
    end = text.find(":")
    while end >= 0:
        line_end = text.find("\n", end)
        if line_end < 0:
            line_end = len(text)
        if not text[end + 1:line_end].strip():  # the colon ends its line
            candidates.append(text.rfind("\n", 0, end) + 1)
        end = text.find(":", line_end)
    for line_start in sorted(candidates):
        found = _FORWARD_LINE.match(text, line_start)
        if found:
            return found
    return None


def strip_quoted(text: str) -> str:
    """The e-mail's own words: cut at the quoted chain, drop `>` lines left in between. A
    forwarded e-mail is kept (its quoting removed), with what it forwards in turn."""
    text = text.replace("\r\n", "\n")
    forward = _find_forward(text)
    if forward is None:
        return _own_words(text)
    own = _own_words(text[: forward.start()])
    marker = forward.group().lstrip("> \t")
    forwarded = strip_quoted(_unquote(text[forward.end():], forward["quotes"].count(">")))
    return "\n\n".join(part for part in (own, f"{marker}\n{forwarded}".strip()) if part)


def _own_words(text: str) -> str:
    match = _QUOTE_HEADERS.search(text)
    if match:
        text = text[: match.start()]
    own = [line for line in text.split("\n") if not line.startswith(">")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(own)).strip()


def _is_attachment(part: EmailMessage) -> bool:
    return (part.get("Content-Disposition") or "").strip().lower().startswith("attachment")


def _first_part(message: EmailMessage, content_type: str) -> EmailMessage | None:
    for part in message.walk():
        if part.get_content_type() == content_type and not _is_attachment(part):
            return part
    return None


def body_text(message: EmailMessage) -> str:
    plain = _first_part(message, "text/plain")
    if plain is not None:
        return strip_quoted(decode_part(plain))
    html = _first_part(message, "text/html")
    if html is not None:
        return strip_quoted(html_to_text(decode_part(html)))
    return ""
