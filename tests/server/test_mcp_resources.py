"""MCP resources and the prompt, through the SDK's own client against the real server: what a token
that sees everything reads, and that a restricted token learns through them nothing its tools hide."""

from __future__ import annotations

import json

import pytest
from mcp.shared.exceptions import MCPError

from tests.server.conftest import running_server
from tests.server.test_page import seed_biography

WHOLE = ["biographer://bio.md", "biographer://timeline", "biographer://people"]


async def _refused(mcp, uri: str) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await mcp.read_resource(uri)
    return caught.value


async def test_a_token_that_sees_everything_reads_bio_timeline_people_and_sources(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        cited = await seed_biography(server)
        async with server.mcp(await server.token()) as mcp:
            assert [r.uri for r in (await mcp.list_resources()).resources] == WHOLE
            templates = {t.name: t.uri_template for t in (await mcp.list_resource_templates()).resource_templates}
            assert templates == {"person": "biographer://people/{name}", "source": "biographer://sources/{locator}"}

            bio = (await mcp.read_resource("biographer://bio.md")).contents[0]
            assert bio.mime_type == "text/markdown"
            assert "- Maya: my closest friend, who books the ferries" in bio.text and cited["knee"] in bio.text
            timeline = json.loads((await mcp.read_resource("biographer://timeline")).contents[0].text)
            assert sorted(e["title"] for e in timeline) == ["Knee hurts again", "Marathon training starts",
                                                           "Moved to Lisbon"]
            assert all(e["locators"] == [cited["knee"]] for e in timeline)
            people = json.loads((await mcp.read_resource("biographer://people")).contents[0].text)
            assert [(p["name"], p["resource"]) for p in people] == [("Maya", "biographer://people/Maya")]

            maya = (await mcp.read_resource("biographer://people/Maya")).contents[0].text
            assert maya.startswith("Maya\n") and f"WhatsApp with Maya ({cited['chat']}): 2 messages" in maya
            # a source is what the read tool answers for its locator
            source = json.loads((await mcp.read_resource(f"biographer://sources/{cited['knee']}")).contents[0].text)
            tool = (await mcp.call_tool("read", {"locator": cited["knee"]})).structured_content
            assert source == tool and "Knee hurts again" in source["text"]

            unknown = await _refused(mcp, "biographer://people/Zorro")
            assert unknown.message.startswith("400: no person is known as 'Zorro'")
            assert "biographer://people" in unknown.data["hint"]
            nowhere = await _refused(mcp, "biographer://diary")
            assert nowhere.message.startswith("404: no resource") and "biographer://sources/LOCATOR" in nowhere.message


async def test_a_restricted_token_learns_nothing_through_resources_its_tools_hide(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        cited = await seed_biography(server)
        async with server.mcp(await server.token("docs", sections=["documents"])) as mcp:
            assert (await mcp.list_resources()).resources == []
            assert [t.name for t in (await mcp.list_resource_templates()).resource_templates] == ["source"]
            for uri in (*WHOLE, "biographer://people/Maya", "biographer://people/Zorro"):
                refusal = await _refused(mcp, uri)
                assert refusal.message.startswith("403: client 'docs' may not read"), uri
                assert "without --sections" in refusal.data["hint"]
            # the chat is outside its sections: it reads exactly as a source that does not exist
            hidden = await _refused(mcp, f"biographer://sources/{cited['chat']}")
            missing = await _refused(mcp, "biographer://sources/doc999")
            assert hidden.message.replace(cited["chat"][3:], "999") == missing.message
            assert missing.message.startswith("404: no document 999") and missing.data["hint"]
            tool = await mcp.call_tool("read", {"locator": cited["chat"]})
            assert tool.is_error and json.loads(tool.content[0].text[5:]) == hidden.data
            journal = json.loads((await mcp.read_resource("biographer://sources/doc1")).contents[0].text)
            assert journal["section"] == "documents"

        async with server.mcp(await server.token("finder", allow=["search"])) as mcp:
            assert (await mcp.list_resources()).resources == []
            assert (await mcp.list_resource_templates()).resource_templates == []
            for uri in ("biographer://bio.md", "biographer://sources/doc1"):
                refusal = await _refused(mcp, uri)
                assert refusal.message.startswith("403: client 'finder' may not read (allowed: search)")
                assert "--allow search,read" in refusal.message  # the hint is in the message itself


async def test_the_prompt_carries_the_rules_for_what_the_token_may_do(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.mcp(await server.token()) as mcp:
            [prompt] = (await mcp.list_prompts()).prompts
            assert prompt.name == "use_memory" and [a.name for a in prompt.arguments] == ["question"]
            full = (await mcp.get_prompt("use_memory", {"question": "Who is Maya?"})).messages[0].content.text
            with pytest.raises(MCPError) as unknown:
                await mcp.get_prompt("answer_everything")
        for rule in ("search", "biographer://bio.md", "`read` the passage's locator", "`save` it", "`source`",
                     "`date`", "Suggestions stay suggestions", "never as `decision`"):
            assert rule in full, rule
        assert full.endswith("The owner asks: Who is Maya?")
        assert unknown.value.message.startswith("404: no prompt 'answer_everything' (use use_memory")

        async with server.mcp(await server.token("finder", allow=["search"], sections=["documents"])) as mcp:
            narrow = (await mcp.get_prompt("use_memory")).messages[0].content.text
        assert "may not save" in narrow and "`save` it" not in narrow and "never as `decision`" not in narrow
        assert "bio.md" not in narrow and "`read` the passage" not in narrow
        assert "Suggestions stay suggestions" in narrow and "search" in narrow


async def test_tool_refusals_carry_their_hint_in_the_text(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.mcp(await server.token("finder", allow=["search"])) as mcp:
            for name, arguments in (("save", {"text": "x"}), ("search", {}), ("teleport", {})):
                answer = await mcp.call_tool(name, arguments)
                status, _, body = answer.content[0].text.partition(": ")
                assert answer.is_error and status in {"400", "403"}, name
                assert json.loads(body)["hint"], name
