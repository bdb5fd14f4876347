"""The biographer's commands end to end: the real CLI, the real client, the fake server."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    monkeypatch.setenv("BIOGRAPHER_LLM_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("BIOGRAPHER_LLM_MODEL", "fake-chat")
    monkeypatch.setenv("BIOGRAPHER_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("BIOGRAPHER_EMBEDDING_BACKEND", "local")
    return fake_openai


def test_bio_questions_timeline_on_a_fresh_store(cli_env, capsys) -> None:
    assert main(["bio"]) == 0
    assert "## People & Relationships" in capsys.readouterr().out
    assert main(["bio", "--history"]) == 0
    assert " create " in capsys.readouterr().out
    assert main(["questions"]) == 0
    assert "no open questions" in capsys.readouterr().out
    assert main(["timeline"]) == 0
    assert main(["bio", "--undo", "99"]) == 2
    assert "there is no edit 99" in capsys.readouterr().err


def test_model_errors_are_one_line_with_a_hint(cli_env: FakeOpenAIServer, capsys) -> None:
    cli_env.fail(401, "Incorrect API key provided")
    assert main(["ask", "where", "do", "I", "live?"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the model endpoint refused the API key")
    assert "BIOGRAPHER_LLM_API_KEY" in err and "Traceback" not in err


@pytest.mark.model
def test_ask_prints_the_answer_and_usage_counts(cli_env: FakeOpenAIServer, capsys) -> None:
    cli_env.call("search", {"query": "who am I"})
    cli_env.reply("Nothing in your sources yet; tell me about yourself.")
    assert main(["ask", "who", "am", "I?"]) == 0
    assert "tell me about yourself" in capsys.readouterr().out
    assert main(["stats"]) == 0
    assert "chat          1 run " in capsys.readouterr().out


def _user_texts(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] in ("user", "assistant") and m.get("content")]


def test_each_ask_stands_alone_unless_continued(cli_env: FakeOpenAIServer, capsys) -> None:
    cli_env.call("search", {"query": "Porto"}).reply("A wrong answer about Porto.")
    assert main(["ask", "Where", "do", "I", "live?"]) == 0
    start = len(cli_env.requests)
    cli_env.call("search", {"query": "cat"}).reply("No cat found.")
    assert main(["ask", "What", "is", "my", "cat", "called?"]) == 0
    # a fresh conversation: the earlier (wrong) answer does not leak into the next question
    assert _user_texts(cli_env.requests[start]) == ["What is my cat called?"]
    start = len(cli_env.requests)
    cli_env.call("search", {"query": "cat"}).reply("Still no cat.")
    assert main(["ask", "--continue", "Are", "you", "sure?"]) == 0
    assert _user_texts(cli_env.requests[start]) == ["What is my cat called?", "No cat found.", "Are you sure?"]


def test_chat_is_multi_turn_and_can_continue(cli_env: FakeOpenAIServer, monkeypatch, capsys) -> None:
    lines = iter(["Hello there", "And my sister?", ""])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    cli_env.call("search", {"query": "hello"}).reply("Hi!")
    cli_env.call("search", {"query": "sister"}).reply("No sister in your sources.")
    assert main(["chat"]) == 0
    second_turn = cli_env.requests[2]
    assert _user_texts(second_turn) == ["Hello there", "Hi!", "And my sister?"]
    assert "No sister in your sources." in capsys.readouterr().out


def test_usage_says_when_analysis_left_material_unread(cli_env: FakeOpenAIServer, tmp_path, capsys) -> None:
    journal = tmp_path / "journal.md"
    journal.write_text("Started pottery classes on Tuesdays.")
    assert main(["ingest", str(journal)]) == 0
    cli_env.reply("Nothing to add.").reply("Still nothing.")  # no tool call, even after the nudge
    assert main(["analyze"]) == 0
    assert "did not read batch 1" in capsys.readouterr().err
    assert main(["usage"]) == 0
    out = capsys.readouterr().out
    assert "1 passage waits to be read into bio.md" in out and "left its batch unread" in out


def test_questions_are_no_sources_and_remember_keeps_a_statement(cli_env: FakeOpenAIServer, capsys) -> None:
    cli_env.call("search", {"query": "knee"}).reply("Nothing about your knee in your sources.")
    assert main(["ask", "What", "did", "Maya", "say", "about", "my", "knee?"]) == 0
    capsys.readouterr()
    assert main(["sources", "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"  # the question is logged, not kept as evidence
    assert main(["remember", "I", "started", "swimming", "lessons", "--when", "2024-05-06"]) == 0
    assert capsys.readouterr().out.startswith("kept as doc")
    assert main(["grep", "swimming", "--json"]) == 0
    match = json.loads(capsys.readouterr().out)["matches"][0]
    assert match["time"].startswith("2024-05-06") and match["document"] == "Told to the biographer"
