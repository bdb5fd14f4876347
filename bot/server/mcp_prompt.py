"""The MCP prompt `use_memory`: how an agent should use the owner's memory, written for what this
client's token may do (a token that may not save is never told to save)."""

from __future__ import annotations

from mcp import types

from core.serving.clients import Client

NAME = "use_memory"
DESCRIPTION = ("How to use the owner's memory well: search before answering about their people and past, read "
               "the evidence, save new durable facts with source and date, keep suggestions as suggestions.")
ARGUMENTS = [types.PromptArgument(name="question", required=False,
                                  description="the owner's question or request, answered under these rules")]


def _rules(client: Client) -> list[str]:
    may = set(client.operations)
    rules = ["You can use the owner's personal memory (Biographer): their chats, e-mail, documents and journal."]
    if "read" in may and not client.sections:
        rules.append("Read the resource biographer://bio.md first: the owner's profile, who they are and who their "
                     "people are. biographer://people/NAME is one person's page.")
    if "search" in may or "list" in may:
        rules.append("Before answering anything about the owner's people, relationships, plans or past, look it up "
                     "first: `search` for ranked passages, `list` with filters (kind, person, since, until) when "
                     "asked for every instance. Do not answer such questions from assumptions. A search that finds "
                     "nothing means the memory holds nothing on it, not that it never happened: say so.")
    if "read" in may:
        rules.append("Read the evidence before you rely on it: `read` the passage's locator (with a window for "
                     "context), check who said it and when, and tell the owner's own words from what others said "
                     "about them. Quote passages as they are and cite each claim's locator and date.")
    if "save" in may:
        rules.append("When the owner tells you something durable (a decision, a preference, a fact about a person, "
                     "a plan they settled on), `save` it: one fact per record, with `source` (where it came from, "
                     "e.g. 'chat with the owner') and `date` (when it was said or happened, if not today). Search "
                     "first so you do not save what is already there; to correct a record, pass `replaces` with "
                     "the `expected_hash` you read. Do not save small talk, guesses or your own conclusions.")
    else:
        rules.append("This token may not save: when the owner tells you something worth keeping, tell them so "
                     "instead of saving it.")
    rules.append("Suggestions stay suggestions: what you or someone else proposes (an idea, a recommendation, a "
                 "plan not yet decided) is never a decision or a fact about the owner. "
                 + ("Save it as kind `recommendation` (with `person`, who recommended it) or `note`, never as "
                    "`decision`; " if "save" in may else "")
                 + "never write it as if the owner did or decided it.")
    return rules


def prompt(client: Client, question: str | None) -> types.GetPromptResult:
    text = "\n\n".join(_rules(client))
    if question and question.strip():
        text += f"\n\nThe owner asks: {question.strip()}"
    return types.GetPromptResult(description=DESCRIPTION, messages=[
        types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))])


def listed() -> list[types.Prompt]:
    return [types.Prompt(name=NAME, description=DESCRIPTION, arguments=ARGUMENTS)]
