"""The composition root wires transcription, photo description, spelling hints and people."""

from pathlib import Path

from bot.compose import build_describer, build_transcriber, open_memory
from core.config import Settings
from core.providers.openai_vision import OpenAIDescriber
from core.providers.whisper import WhisperTranscriber
from core.types import SearchFilters
from storage import people as people_store
from storage import profile as profile_store
from tests.core.helpers import memory_at, whatsapp_export
from tests.fakes.embedder import HashEmbedder

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def test_local_whisper_by_default_none_when_switched_off_and_no_vision_unless_named(tmp_path):
    assert isinstance(build_transcriber(Settings(data_dir=tmp_path)), WhisperTranscriber)
    assert build_transcriber(Settings(data_dir=tmp_path, transcription_backend="none")) is None
    assert build_describer(Settings(data_dir=tmp_path)) is None  # photos never leave unasked
    named = build_describer(Settings(data_dir=tmp_path, llm_vision_model="qwen2.5-vl"))
    assert isinstance(named, OpenAIDescriber) and named.model == "qwen2.5-vl"


def test_the_vision_model_gets_the_image_and_the_known_names(tmp_path, fake_openai):
    photo = tmp_path / "harbour.png"
    photo.write_bytes(PNG)
    fake_openai.reply("Two people on a pier at sunset. Text: TAVIRA")
    describer = OpenAIDescriber(base_url=fake_openai.base_url, api_key="k", model="vision-test")
    assert describer.describe(photo, hints=["Maya", "Tavira"]) == "Two people on a pier at sunset. Text: TAVIRA"
    content = fake_openai.requests[0]["messages"][0]["content"]
    assert fake_openai.requests[0]["model"] == "vision-test"
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    assert "Maya, Tavira" in content[0]["text"]


class RecordingTranscriber:
    def __init__(self) -> None:
        self.hints: list[tuple[str, ...]] = []

    def transcribe(self, path: Path, *, hints=()) -> str:
        self.hints.append(tuple(hints))
        return "Walked with Maya to the harbour."


async def test_transcription_gets_names_from_the_profile_and_the_chats(tmp_path):
    from dataclasses import replace

    whatsapp_export(tmp_path / "WhatsApp Chat with Joaquim.txt", [
        "01/05/2024, 10:00 - Joaquim: Bom dia", "01/05/2024, 10:01 - Ana: Hi Joaquim"])
    (tmp_path / "voice.ogg").write_bytes(b"OggS" + b"\x00" * 100)
    transcriber = RecordingTranscriber()
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        memory.context = replace(memory.context, transcriber=transcriber)
        memory.ingestor.context = memory.context
        await memory.ingest([tmp_path / "WhatsApp Chat with Joaquim.txt"])
        async with memory.conn.transaction():
            await profile_store.write_profile(
                memory.conn, before="", after="# Ana\n\nLives near Guimarães with Teodora.",
                at="2024-05-01T00:00:00Z", kind="edit", section=None, old_text="", new_text="x",
                run_id=None, locators=[])
        report = await memory.ingest([tmp_path / "voice.ogg"])
    assert report.errors == []
    assert {"Joaquim", "Teodora", "Guimarães"} <= set(transcriber.hints[0])


async def test_the_person_filter_follows_merged_names(tmp_path):
    whatsapp_export(tmp_path / "WhatsApp Chat with Maya.txt", [
        "01/05/2024, 10:00 - Maya: the ferry leaves at nine"])
    whatsapp_export(tmp_path / "WhatsApp Chat with Maya S.txt", [
        "02/06/2024, 10:00 - Maya Silva: the ferry was late again"])
    async with memory_at(tmp_path / "data", HashEmbedder()) as memory:
        await memory.ingest([tmp_path / "WhatsApp Chat with Maya.txt", tmp_path / "WhatsApp Chat with Maya S.txt"])
        before = await memory.search("ferry", mode="keyword", filters=SearchFilters(person="Maya"))
        await people_store.merge(memory.conn, "Maya", "Maya Silva")
        after = await memory.search("ferry", mode="keyword", filters=SearchFilters(person="Maya"))
    assert len(before) == 1
    assert {h.document for h in after} == {"WhatsApp with Maya", "WhatsApp with Maya S"}


async def test_open_memory_builds_a_working_store(tmp_path):
    settings = Settings(data_dir=tmp_path / "d", transcription_backend="none")
    (tmp_path / "n.txt").write_text("a note", encoding="utf-8")
    async with open_memory(settings, embedder=HashEmbedder()) as memory:
        assert (await memory.ingest([tmp_path / "n.txt"])).documents_added == 1
        assert memory.context.transcriber is None


def test_no_chat_model_is_built_for_a_remote_endpoint_without_a_key(tmp_path):
    from bot.compose import build_llm

    assert build_llm(Settings(data_dir=tmp_path)) is None  # OpenRouter by default: needs a key
    assert build_llm(Settings(data_dir=tmp_path, llm_api_key="k")) is not None
    assert build_llm(Settings(data_dir=tmp_path, llm_base_url="http://localhost:11434/v1")) is not None
    assert build_llm(Settings(data_dir=tmp_path, llm_base_url="http://ollama:11434/v1")) is not None


def test_ask_without_a_model_says_what_to_set_and_sends_nothing(tmp_path, capsys):
    from bot.cli import main

    assert main(["--data-dir", str(tmp_path / "d"), "ask", "anything?"]) == 2
    err = capsys.readouterr().err
    assert "no language model is configured" in err and "BIOGRAPHER_LLM_API_KEY" in err


def test_the_example_env_file_as_copied_leaves_everything_unset(tmp_path, monkeypatch):
    """`cp .env.example .env` must not turn empty lines into an empty key, token or model."""
    import shutil

    shutil.copy(Path(__file__).resolve().parents[2] / ".env.example", tmp_path / ".env")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BIOGRAPHER_DATA_DIR")
    settings = Settings()
    assert settings.llm_api_key is None and settings.telegram_token is None
    assert settings.llm_vision_model is None and settings.whisper_model is None
    assert settings.telegram_owner_ids == [] and settings.embedding_model == "auto"
    from bot.compose import build_describer, build_llm

    assert build_llm(settings) is None and build_describer(settings) is None


def test_the_time_zone_defaults_to_this_machines(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Lisbon")
    assert Settings(data_dir=tmp_path).timezone == "Europe/Lisbon"
    monkeypatch.setenv("TZ", "Not/AZone")
    assert Settings(data_dir=tmp_path).timezone in {"UTC", "Etc/UTC"} or "/" in Settings(data_dir=tmp_path).timezone
    monkeypatch.setenv("BIOGRAPHER_TIMEZONE", "Asia/Tokyo")
    assert Settings(data_dir=tmp_path).timezone == "Asia/Tokyo"
