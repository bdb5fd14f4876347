"""The pattern report: one run over the sources with material in a period, kept as a source of
its own kind (never analysed as evidence about the owner)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from core.agent.config import REPORT_TOOLS
from core.agent.delimiters import neutralise
from core.agent.tools import Turn
from core.biographer.runner import UNCHECKED, Runner
from core.privacy.disclosure import Shown, model_sees
from core.times import utc_iso_precise
from core.types import Answer, SourceDocument
from core.words import counted
from storage import chat as chat_store
from storage.chat import PeriodDocument

REPORT_KIND = "biographer_report"
CUT_REPORT = "(This report was cut short at the model's length limit: it is incomplete.)"


async def report(runner: Runner, *, days: int = 7) -> Answer:
    await runner.check_cap()
    until = runner.clock()
    since = until - timedelta(days=days)
    listing = _period_listing(await chat_store.documents_between(
        runner.conn, utc_iso_precise(since), utc_iso_precise(until)), remote=runner.remote)
    zone = runner.config.zone
    user = [{"role": "user", "content":
             f"Period: {since.astimezone(zone):%Y-%m-%d} to {until.astimezone(zone):%Y-%m-%d} ({counted(days, 'day')}).\n"
             f"Sources with material in the period:\n{listing}\n"
             "Read them with search, grep (since/until) and read_source."}]
    turn = Turn(run_id=None)
    result, turn = await runner.agent(kind="report", prompt="report", role="analysis",
                                      budget=runner.config.analysis_steps, user=user, tools=REPORT_TOOLS,
                                      turn=turn, needs_evidence=lambda reply: not turn.evidence.cites_seen(reply))
    answer = await runner.cited(result, turn)
    if result.successful_calls == 0 and not answer.citations:
        answer = replace(answer, text=f"{UNCHECKED}\n\n{answer.text}", checked=False)
    if result.truncated:  # never kept as if complete
        answer = replace(answer, text=f"{CUT_REPORT}\n\n{answer.text}")
    await runner.memory.save([SourceDocument(
        kind=REPORT_KIND, identity=f"report:{turn.run_id}",
        name=f"Pattern report {since.astimezone(zone):%Y-%m-%d} – {until.astimezone(zone):%Y-%m-%d}",
        text=answer.render(), time_start=until)])
    return answer


def _period_listing(documents: list[PeriodDocument], *, remote: bool) -> str:
    """The sources with material in a report's period, as the model may see them: a remote one is
    not told of denied sources, and of descriptors_only ones only the kind."""
    lines = []
    for d in documents:
        seen = model_sees(d.policy, remote=remote)
        if d.kind == REPORT_KIND or seen is Shown.NOTHING:
            continue
        name = d.kind if seen is Shown.DESCRIPTOR else neutralise(d.name)
        lines.append(f"- doc{d.id} {name} ({d.kind}), {(d.time_start or '?')[:10]} to {(d.time_end or '?')[:10]}")
    return "\n".join(lines) or "- (no sources with material in this period)"
