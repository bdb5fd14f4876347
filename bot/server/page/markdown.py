"""bio.md as safe HTML: CommonMark (markdown-it-py) with raw HTML off, so every `<` of the text is
shown, never run; no images, so nothing is fetched from elsewhere; and each citation
`[doc3:120-480]` (or `[doc3:1-9, doc4:0-50]`) a link that opens the cited passage."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from markdown_it import MarkdownIt
from markupsafe import Markup
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from core.types import CITED_LOCATORS, LOCATOR_PATTERN, Citation

_CITATION = re.compile(rf"\[({CITED_LOCATORS})\]")
_ONE = re.compile(LOCATOR_PATTERN)


def passage_url(locator: str) -> str:
    return f"/passage/{locator}"


def citation_link(locator: str) -> str:
    """One locator as the link the page's script opens beside the text (a plain link without it)."""
    return (f'<a class="cite" href="{escape(passage_url(locator))}" data-locator="{escape(locator)}">'
            f"{escape(locator)}</a>")


def _citation(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "[":
        return False
    match = _CITATION.match(state.src, state.pos, state.posMax)
    if match is None:
        return False
    if not silent:
        token = state.push("citation", "", 0)
        token.meta = {"locators": _ONE.findall(match.group(1))}
    state.pos = match.end()
    return True


def _render_citation(renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict,
                     env: EnvType) -> str:
    links = ", ".join(citation_link(loc) for loc in tokens[idx].meta["locators"])
    return f'<span class="citation">[{links}]</span>'


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
    md.inline.ruler.before("link", "citation", _citation)
    md.add_render_rule("citation", _render_citation)
    return md


_MD = _parser()


def render_markdown(text: str) -> str:
    """Markdown to HTML in which nothing of `text` can become markup or a fetched resource."""
    return _MD.render(text)


def link_citations(text: str) -> Markup:
    """Plain text (an answer, an event) escaped, with its citations as links: Markup, so the
    templates' autoescape does not escape it a second time (which showed `<a class="cite">` as text)."""
    out, at = [], 0
    for match in _CITATION.finditer(text):
        out.append(escape(text[at:match.start()]))
        out.append("[" + ", ".join(citation_link(loc) for loc in _ONE.findall(match.group(1))) + "]")
        at = match.end()
    out.append(escape(text[at:]))
    return Markup("".join(out))


_MARKER = re.compile(r"\[(\d+)\]")


def link_markers(text: str, citations: Sequence[Citation]) -> Markup:
    """An answer's text escaped, each [n] marker a link to the passage citation n checked (a
    marker that names no citation stays text)."""
    by_number = {c.n: str(c.locator) for c in citations}
    out, at = [], 0
    for match in _MARKER.finditer(text):
        locator = by_number.get(int(match.group(1)))
        if locator is None:
            continue
        out.append(escape(text[at:match.start()]))
        out.append(f'<a class="cite" href="{escape(passage_url(locator))}" data-locator="{escape(locator)}">'
                   f"{escape(match.group())}</a>")
        at = match.end()
    out.append(escape(text[at:]))
    return Markup("".join(out))
