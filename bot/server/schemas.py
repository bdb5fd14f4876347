"""The wire contract, once: request and response bodies as pydantic models. REST takes its
OpenAPI schema from them and MCP its tools' input schemas, so the two interfaces cannot drift."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.serving.memory_api import LIST_STATUSES, MAX_LIMIT, MAX_LIST_LIMIT, MAX_WINDOW
from core.serving.saves import MAX_FIELD_CHARS, MAX_SAVE_CHARS
from core.serving.sections import DEFAULT_SAVE_SECTION, SAVE_KINDS

DATE = ("a date or period: 2024, 2024-03, 2024-03-05, an ISO date and time, today, yesterday, last week, "
        "3 days ago (read in the owner's time zone)")
Kinds = str | list[str] | None


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not silently ignored


class FilterFields(Strict):
    kind: Kinds = Field(None, description="only sources of this kind (or these kinds): whatsapp, telegram, email, "
                                          "pdf, markdown, journal, note, recommendation ...")
    person: str | None = Field(None, max_length=200, description="only passages where this person speaks "
                                                                 "(any of their names)")
    since: str | None = Field(None, max_length=40, description="from this date on: " + DATE)
    until: str | None = Field(None, max_length=40, description="up to the end of this date: " + DATE)

    def kinds(self) -> tuple[str, ...]:
        if self.kind is None:
            return ()
        return (self.kind,) if isinstance(self.kind, str) else tuple(self.kind)


class SearchRequest(FilterFields):
    query: str = Field(min_length=1, max_length=1000, description="what to look for, in words or keywords")
    limit: int = Field(10, ge=1, le=MAX_LIMIT, description="how many passages at most")
    mode: Literal["hybrid", "keyword", "semantic"] = Field("hybrid", description="hybrid (default) ranks keyword "
                                                                                "and meaning matches together")


class ReadRequest(Strict):
    locator: str = Field(min_length=1, max_length=100, description="a locator from search or list, e.g. "
                                                                   "doc12:3400-4100 (doc12 alone: the whole source)")
    generation: int | None = Field(None, ge=0, description="the generation search or list gave: if the source was "
                                                           "removed or corrected since, the answer is 409")
    expected_hash: str | None = Field(None, max_length=64, description="the source_hash search or list gave: if the "
                                                                       "text differs now, the answer is 409")
    window: int = Field(0, ge=0, le=MAX_WINDOW, description="characters of context to add each side "
                                                            "(widened to whole lines)")


class ListRequest(FilterFields):
    section: str | None = Field(None, max_length=40, description="only this section (chats, email, documents, "
                                                                 "journal, ... or a section agents saved into)")
    status: Literal[tuple(LIST_STATUSES)] = Field(  # type: ignore[valid-type]
        "current", description="current (default): everything but superseded versions of corrected records; "
                               "superseded: only those; pending: saved but not yet searchable; searchable; all")
    cursor: str | None = Field(None, max_length=200, description="next_cursor from the previous page")
    limit: int = Field(100, ge=1, le=MAX_LIST_LIMIT, description="passages per page")


class SaveRequestBody(Strict):
    text: str = Field("", max_length=MAX_SAVE_CHARS, description="what to keep, in the owner's terms "
                                                                 "(may be empty for a link)")
    kind: Literal[tuple(SAVE_KINDS)] = Field(  # type: ignore[valid-type]
        "note", description="note, preference, decision, recommendation (a book, show, film, place or product; "
                            "say who recommended it in person) or link")
    section: str = Field(DEFAULT_SAVE_SECTION, max_length=40, description="the section to save into (yours, e.g. "
                                                                          "notes; never an imported one)")
    date: str | None = Field(None, max_length=40, description="when it was said or decided, if not today: " + DATE)
    source: str | None = Field(None, max_length=MAX_FIELD_CHARS, description="where it comes from, e.g. "
                                                                            "'told to Claude in a chat'")
    url: str | None = Field(None, max_length=MAX_FIELD_CHARS, description="a web address; it is kept, never "
                                                                         "fetched or read")
    person: str | None = Field(None, max_length=200, description="who recommended it, or whom it concerns")
    replaces: str | int | None = Field(None, description="to correct a saved record: its record id or the "
                                                         "locator of its current version")
    expected_hash: str | None = Field(None, max_length=64, description="with replaces: the hash of the version "
                                                                       "you read; if it changed since, 409")


class SaveToolRequest(SaveRequestBody):
    """MCP has no headers: the idempotency key travels as an argument."""

    idempotency_key: str | None = Field(None, max_length=200, description="a unique string for this save (a UUID); "
                                        "send the same one when retrying so the save is made once. Without it, "
                                        "the same content saved twice is one record")


# ---------------------------------------------------------------- responses

class IndexOut(BaseModel):
    generation: int
    passages: int
    pending: int = Field(description="passages saved but not yet in semantic search")
    state: Literal["ready", "building"]


class PassageOut(BaseModel):
    locator: str
    text: str
    source: str
    kind: str
    section: str
    time: str | None
    time_end: str | None
    speakers: list[str]
    source_hash: str
    generation: int
    score: float | None = None
    searchable: bool | None = None
    record: int | None = None
    status: Literal["current", "superseded"] | None = None


class SearchOut(BaseModel):
    outcome: Literal["matched", "nothing_matched", "index_building", "unavailable"]
    message: str
    evidence: Literal["words", "meaning_only"] | None = Field(
        description="words: some result holds the query's words; meaning_only: the results are only the closest "
                    "in meaning (semantic search always finds a nearest passage), so they may be unrelated")
    exhaustive_list: bool = Field(False, description="the query asks for a list (list every, all the, how many "
                                                     "times, or things in the plural: what pets have I had?): results "
                                                     "are the best matches, not all; use list")
    results: list[PassageOut]
    index: IndexOut


class ReadOut(BaseModel):
    locator: str
    text: str
    source: str
    kind: str
    section: str
    senders: list[str]
    time: str | None
    time_end: str | None
    source_hash: str
    generation: int
    document_length: int
    record: int | None = None
    version: int | None = None
    superseded_by: str | None = None


class ListOut(BaseModel):
    items: list[PassageOut]
    next_cursor: str | None
    generation: int
    message: str | None = Field(None, description="on an empty first page whose filters name nothing: which "
                                                  "(a kind, person or section) and what there is instead")


class SaveOut(BaseModel):
    record: int
    version: int
    locator: str
    hash: str
    section: str
    kind: str
    generation: int
    status: Literal["saved"]
    searchable: bool = Field(description="false until indexing has caught up; readable by its locator at once")
    replayed: bool = Field(description="true when this answers a retry: the record the first request saved")
    replaced: str | None


class LimitsOut(BaseModel):
    rate_per_minute: int
    max_body_bytes: int
    max_search_limit: int
    max_list_limit: int
    max_save_chars: int


class CapabilitiesOut(BaseModel):
    client: str
    operations: list[str]
    sections: list[str] | Literal["all"]
    sections_held: list[str]
    save_kinds: list[str]
    index: IndexOut
    limits: LimitsOut
    version: str


class ErrorOut(BaseModel):
    error: str = Field(description="one line: what went wrong")
    hint: str = Field("", description="what to do about it")
    details: dict | None = None


class DeleteRequest(Strict):
    record: int = Field(ge=1, le=2**62, description="the record id save or list gave")


class DeleteOut(BaseModel):
    record: int
    status: Literal["deleted"]
    versions: int
    generation: int
