"""The biographer's commands end to end: the real CLI, the real client, the fake server."""

from __future__ import annotations

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
    cli_env.reply("Nothing in your sources yet; tell me about yourself.")
    assert main(["ask", "who", "am", "I?"]) == 0
    assert "tell me about yourself" in capsys.readouterr().out
    assert main(["stats"]) == 0
    assert "chat         1 runs" in capsys.readouterr().out
