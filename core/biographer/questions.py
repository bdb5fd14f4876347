"""The scheduled questions: which open question to ask next, when it was asked, and the owner's
answer folded into the profile by one run."""

from __future__ import annotations

from datetime import datetime, timedelta

from core.agent.config import ANALYSIS_TOOLS
from core.agent.delimiters import neutralise
from core.agent.tools import Turn
from core.biographer.runner import Runner, question_of
from core.errors import UserFacingError
from core.times import utc_iso_precise
from core.types import Answer, OpenQuestion
from storage import chat as chat_store
from storage import questions as question_store


class Questions:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.conn = runner.conn

    async def next_question(self) -> OpenQuestion | None:
        horizon = self.runner.clock() - timedelta(days=self.runner.config.question_repeat_days)
        row = await question_store.next_question(self.conn, asked_before=utc_iso_precise(horizon))
        return question_of(row) if row else None

    async def mark_asked(self, question_id: int, when: datetime) -> None:
        async with self.conn.transaction():
            await question_store.mark_asked(self.conn, question_id, utc_iso_precise(when))

    async def answer_question(self, question_id: int, text: str) -> Answer:
        row = await question_store.get_question(self.conn, question_id)
        if row is None:
            raise UserFacingError(f"there is no question #{question_id}", hint="see `biographer questions`")
        question = question_of(row)
        if question.status not in ("open", "asked"):
            raise UserFacingError(f"question #{question_id} is already {question.status}",
                                  hint="tell me in the chat if something changed")
        runner, toolbox = self.runner, self.runner.toolbox
        locator = await runner.remember(text, conversation="questions")
        source = await runner.memory.read(locator)
        turn = Turn(run_id=None)
        turn.evidence.add(locator, source.document, await toolbox.when_at(locator))
        user = [{"role": "user", "content":
                 f"Open question #{question.id}: {neutralise(question.text)}\n"
                 + (f"Why it matters: {neutralise(question.why)}\n" if question.why else "")
                 + "The owner's answer:\n"
                 + toolbox.source(locator, source.document, await toolbox.when_at(locator), source.text)}]
        result, turn = await runner.agent(kind="answer", prompt="answer", role="analysis",
                                          budget=runner.config.analysis_steps, user=user, turn=turn,
                                          tools=ANALYSIS_TOOLS, needs_evidence=lambda reply: True,
                                          edit_kind="correction", cuttable_user=False)
        if question_id not in turn.questions_resolved:
            # the owner answered it: it is closed whether or not the model remembered to say so
            async with self.conn.transaction():
                await question_store.resolve(self.conn, question_id, status="answered",
                                             resolution=f"answered by the owner [{locator}]", at=runner.now_iso())
        async with self.conn.transaction():  # folded in already: analysis need not read it again
            await chat_store.mark_analyzed(self.conn, locator.document_id, locator.char_end,
                                           run_id=turn.run_id, at=runner.now_iso())
        return await runner.cited(result, turn)
