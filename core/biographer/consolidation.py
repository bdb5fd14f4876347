"""Consolidation: each section of bio.md rewritten coherently by the model, section by section; a
rewrite that loses a citation, adds a heading or was cut short is refused and the section kept."""

from __future__ import annotations

import logging
import re

from core.agent import prompts
from core.agent.budget import estimate_tokens
from core.agent.delimiters import neutralise
from core.biographer.profile import GENERATED, citations_in, consolidation_problems, section_span, sections_of
from core.biographer.runner import Runner
from core.ports import Usage

log = logging.getLogger(__name__)


async def consolidate(runner: Runner, *, force: bool = False) -> bool:
    """Rewrite each section coherently; a rewrite that loses a citation or a section is refused."""
    book, config = runner.book, runner.config
    if not force and await book.edits_since_consolidation() == 0:
        return False
    await runner.check_cap()
    llm = runner.require_llm()
    run_id = await runner.start("consolidation", "analysis")
    usage, refused = Usage(), []
    before = await book.text()
    after = before
    try:
        for section in sections_of(before):
            if section in GENERATED:
                continue
            start, end = section_span(after, section)
            body = after[start:end].strip()
            if not body:
                continue
            # the rewrite is about as long as the section: room for it, within the window
            room = min(estimate_tokens(body) * 3 // 2 + 200, config.context_tokens // 2)
            completion = await llm.complete(
                [{"role": "system", "content": prompts.system_prompt(
                    "consolidate", now=runner.clock().astimezone(config.zone),
                    timezone=str(config.zone), owner=config.owner)},
                 {"role": "user", "content": f"Section: {section}\n<section>\n{neutralise(body)}\n</section>"}],
                role="analysis", max_tokens=room)
            usage = usage + completion.usage
            rewritten = _unfenced(completion.content or "")
            problems = ("the rewrite was cut at the length limit" if completion.truncated
                        else _section_problems(body, rewritten))
            if problems:
                refused.append(f"{section}: {problems}")
                log.warning("consolidation of %s refused: %s", section, problems)
                continue
            after = after[:start] + "\n" + rewritten + "\n\n" + after[end:].lstrip("\n")
        problems = consolidation_problems(before, after)
        if problems:  # belt and braces: the section checks should have caught it
            refused.append("; ".join(problems))
            after = before
    except BaseException:
        await runner.finish(run_id, status="failed", usage=usage)
        raise
    replaced = after != before
    if replaced:
        await book.replace(after, kind="consolidation", run_id=run_id)
    await runner.finish(run_id, status="done" if not refused else "partly refused", usage=usage,
                        note="; ".join(refused))
    return replaced


def _section_problems(old: str, new: str) -> str:
    if not new.strip():
        return "the rewrite is empty"
    if re.search(r"^#{1,2} ", new, re.MULTILINE):
        return "the rewrite adds headings"
    dropped = sorted(citations_in(old) - citations_in(new))
    return f"citations dropped: {', '.join(dropped)}" if dropped else ""


def _unfenced(text: str) -> str:
    text = text.strip()
    match = re.fullmatch(r"```[a-zA-Z]*\n(.*)\n```", text, re.DOTALL)
    return (match.group(1) if match else text).strip()
