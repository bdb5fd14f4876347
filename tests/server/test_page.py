"""The local web page over plain HTTP (httpx against the real server): its door (login, sessions,
Host, CSRF, origin), what each page shows, and the pieces it is built from. The browser tests
(test_page_browser.py) drive the same page through Chromium."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta, timezone
from urllib.parse import quote

import httpx
import pytest
from bs4 import BeautifulSoup

from bot.cli import main
from core.biographer.gate import AgentGate
from core.providers.openai_chat import OpenAIChat
from bot.server.page.markdown import render_markdown
from bot.server.page.views import timeline_zoom
from core.serving.api_errors import NotAuthenticated
from core.serving.page_sessions import PageSessions
from core.types import SearchFilters, TimelineEvent
from storage import questions as question_store
from storage import runs as run_store
from storage import timeline as timeline_store
from tests.server.conftest import Running, running_server

COOKIE = "biographer_session"


async def page_token(server: Running, name: str = "me") -> str:
    return (await server.service.clients.add(name, page=True)).token


@asynccontextmanager
async def logged_in(server: Running, token: str | None = None) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client holding a session cookie, as a browser would after logging in."""
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        answer = await http.post("/login", data={"token": token or await page_token(server), "next": "/bio"})
        assert answer.status_code == 303, answer.text
        # the cookie is Secure: a browser keeps it for http://127.0.0.1 (a secure context); httpx's
        # cookie jar only for https, so it is handed over as a browser would send it
        secret = answer.cookies[COOKIE]
        http.cookies.clear()
        http.cookies.set(COOKIE, secret)
        yield http


def csrf_of(html: str) -> str:
    marker = '<meta name="csrf-token" content="'
    start = html.index(marker) + len(marker)
    return html[start:html.index('"', start)]


async def seed_biography(server: Running) -> dict[str, str]:
    """bio.md with cited lines, a timeline and an open question, as the biographer leaves them."""
    service = server.service
    chat = next(s for s in await service.sources() if s.name == "WhatsApp with Maya")
    hit = (await service.memory.search("knee", limit=1, mode="keyword", filters=SearchFilters(kinds=("whatsapp",))))[0]
    knee = str(hit.locator)
    book = service.biographer.book
    await book.edit("", f"- Maya: my closest friend, who books the ferries [doc{chat.id}:0-60]",
                    section="People & Relationships")
    await book.edit("", f"- Runs marathons; the knee hurts again [{knee}]", section="Identity")
    conn = service.memory.conn
    async with conn.transaction():
        for date, title in (("2024-03", "Marathon training starts"), ("2024-03-14", "Knee hurts again"),
                            ("2019", "Moved to Lisbon")):
            await timeline_store.add_event(conn, date=date, title=title, detail="", locators=[knee], run_id=None,
                                           at="2024-06-01T00:00:00.000000Z")
        await question_store.add_question(conn, text="What took you to Porto?", why="the move has no reason yet",
                                          priority=4, run_id=None, locators=[], at="2024-06-01T00:00:00.000000Z")
    return {"knee": knee, "chat": f"doc{chat.id}"}


async def test_every_page_needs_a_login_and_a_page_token(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            for path in ("/", "/bio", "/bio/history", "/timeline", "/people", "/people/Maya", "/questions",
                         "/search?q=knee", "/imports", "/passage/doc1:0-10"):
                answer = await http.get(path)
                assert answer.status_code == 303 and answer.headers["location"].startswith("/login"), path
            assert (await http.get("/bio")).headers["location"] == "/login?next=/bio"
            for path in ("/bio/undo/1", "/questions/1/answer", "/imports", "/logout"):
                assert (await http.post(path, data={"csrf": "x"})).status_code == 401, path
            assert (await http.get("/imports/abc")).status_code == 401

            agent = await server.token("agent")
            refused = await http.post("/login", data={"token": agent})
            assert refused.status_code == 401 and "an agent&#39;s token, which cannot open the page" in refused.text
            wrong = await http.post("/login", data={"token": "bio_000000000000_" + "x" * 43})
            assert wrong.status_code == 401 and "unknown token" in wrong.text and COOKIE not in wrong.headers.get(
                "set-cookie", "")

            token = await page_token(server)
            login = await http.post("/login", data={"token": token, "next": "/timeline"})
            assert login.status_code == 303 and login.headers["location"] == "/login/done?next=%2Ftimeline"
            cookie = login.headers["set-cookie"]
            assert "HttpOnly" in cookie and "Secure" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
            # the page token opens no API door
            api = await http.get("/v1/capabilities", headers={"Authorization": f"Bearer {token}"})
            assert api.status_code == 403 and "login for the local web page" in api.json()["error"]
            # an offered "next" never leads off the server
            elsewhere = await http.post("/login", data={"token": token, "next": "//evil.example/x"})
            assert elsewhere.headers["location"] == "/login/done?next=%2Fbio"


async def test_logout_revocation_and_a_refused_cookie_end_the_session(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with logged_in(server) as http:
            page = await http.get("/bio")
            assert page.status_code == 200 and "bio.md" in page.text
            secret = http.cookies[COOKIE]
            out = await http.post("/logout", data={"csrf": csrf_of(page.text)})
            assert out.status_code == 303 and out.headers["location"] == "/login"
            assert f'{COOKIE}=""' in out.headers["set-cookie"]  # the browser forgets it
            http.cookies.clear()
            http.cookies.set(COOKIE, secret)  # the old cookie, kept by a thief
            assert (await http.get("/bio")).status_code == 303
            # a browser that logged in but sends no cookie back is told why
            http.cookies.clear()
            assert (await http.get("/login/done?next=/bio")).headers["location"] == "/login?refused=1"
            assert "did not keep the login cookie" in (await http.get("/login?refused=1")).text

        async with logged_in(server, await page_token(server, "laptop")) as http:
            assert (await http.get("/people")).status_code == 200
            await server.service.clients.revoke("laptop")
            assert (await http.get("/people")).headers["location"] == "/login?next=/people"


async def test_sessions_expire(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        now = [datetime(2024, 6, 1, 12, tzinfo=timezone.utc)]
        sessions = PageSessions(server.service.memory.conn, server.service.clients, clock=lambda: now[0])
        new = await sessions.login(await page_token(server), lifetime=timedelta(hours=2))
        assert (await sessions.check(new.secret)).csrf == new.session.csrf != new.secret
        now[0] += timedelta(hours=2, seconds=1)
        with pytest.raises(NotAuthenticated, match="the session ended"):
            await sessions.check(new.secret)


async def test_only_localhost_names_are_served_against_dns_rebinding(settings, tmp_path):
    settings = settings.model_copy(update={"page_hosts": ["bio.example.org"]})
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            port = server.url.rsplit(":", 1)[1]
            for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", "", "[::1"):
                answer = await http.get("/login", headers={"Host": host})
                assert answer.status_code == 421, host
                assert "answers only to" in answer.text and "BIOGRAPHER_PAGE_HOSTS" in answer.text
            for host in (f"localhost:{port}", f"127.0.0.1:{port}", "bio.example.org", f"[::1]:{port}"):
                assert (await http.get("/login", headers={"Host": host})).status_code == 200, host
            # the API keeps its own door (a reverse proxy's public name must reach it)
            assert (await http.get("/v1/capabilities", headers={"Host": "evil.example"})).status_code == 401


async def test_posts_need_the_session_csrf_token_and_the_page_origin(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        await seed_biography(server)
        [latest, *_] = await server.service.biographer.book.history()
        async with logged_in(server) as http:
            csrf = csrf_of((await http.get("/bio/history")).text)
            origin = server.url
            other_port = origin.rsplit(":", 1)[0] + ":1"
            refusals = [
                ({}, {}),  # no token
                ({"csrf": "0" * 64}, {}),  # a wrong one
                ({"csrf": csrf}, {"Origin": other_port}),  # another port of localhost: same site, other origin
                ({"csrf": csrf}, {"Origin": "null"}),
                ({"csrf": csrf}, {"Sec-Fetch-Site": "same-site"}),
            ]
            for data, headers in refusals:
                answer = await http.post(f"/bio/undo/{latest.id}", data=data, headers=headers)
                assert answer.status_code == 403 and "refused" in answer.text, (data, headers)
            assert (await server.service.biographer.book.history())[0].id == latest.id  # nothing was undone

            done = await http.post(f"/bio/undo/{latest.id}", data={"csrf": csrf},
                                   headers={"Origin": origin, "Sec-Fetch-Site": "same-origin"})
            assert done.status_code == 303 and done.headers["location"] == f"/bio/history?undone={latest.id}"
            assert (await server.service.biographer.book.history())[0].undoes == latest.id
            again = await http.post(f"/bio/undo/{latest.id}", data={"csrf": csrf})
            assert again.status_code == 400 and "changed the text" in again.text
            # the script's posts carry the token as a header
            assert (await http.post("/imports", headers={"X-CSRF-Token": csrf})).status_code == 200
            assert (await http.post("/imports", headers={"X-CSRF-Token": "nope"})).status_code == 403


async def test_bio_is_rendered_safely_with_its_citations_as_links(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        places = await seed_biography(server)
        await server.service.biographer.book.edit(
            "", '- Likes <script>alert("x")</script> and ![a photo](http://tracker.example/p.png) '
                '[a link](javascript:alert(1))', section="Interests & Preferences")
        async with logged_in(server) as http:
            page = await http.get("/bio")
            body = page.text
            assert "<script>alert" not in body and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in body
            # an image would be fetched from elsewhere: it stays a link the owner may choose to follow
            assert "<img" not in body and 'href="javascript:' not in body
            knee = places["knee"]
            assert f'<a class="cite" href="/passage/{knee}" data-locator="{knee}">{knee}</a>' in body
            csp = page.headers["content-security-policy"]
            assert "default-src 'none'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
            assert page.headers["x-frame-options"] == "DENY" and page.headers["cache-control"] == "no-store"
            # everything the page loads is its own
            for asset in ("/static/page.css", "/static/page.js", "/static/favicon.svg"):
                assert (await http.get(asset)).status_code == 200
            async with httpx.AsyncClient(base_url=server.url) as stranger:  # no login: nothing private in it
                icon = await stranger.get("/favicon.ico")
            assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
            assert icon.content.startswith(b"<svg") and b"http://www.w3.org/2000/svg" in icon.content
            assert b"href" not in icon.content  # draws itself: nothing fetched
            assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in body
            assert "http" not in "".join(line for line in body.splitlines() if "<link" in line or "<script" in line)


async def test_passage_person_timeline_history_and_search(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        places = await seed_biography(server)
        async with logged_in(server) as http:
            part = (await http.get(f"/passage/{places['knee']}?part=1")).text
            assert "Brutal. Knee hurts again" in part and "Maya" in part and "2024-03-14" in part
            assert "WhatsApp with Maya" in part and "<html" not in part
            missing = await http.get("/passage/doc999:0-10")
            assert missing.status_code == 404 and "no document 999" in missing.text

            await server.service.ledger.add("commitment", "send Maya the ferry photos", person="Maya")
            await server.service.ledger.add("owed", "Maya returns the blue umbrella", person="Maya")
            person = (await http.get("/people/" + quote("Maya"))).text
            assert "my closest friend, who books the ferries" in person
            # the ledger's open items both ways
            assert person.index("You promised them") < person.index("send Maya the ferry photos") \
                < person.index("They owe you") < person.index("Maya returns the blue umbrella")
            assert "2024-03-14 08:15" in person  # last contact, in the owner's zone (Lisbon, UTC+0 in March)
            assert (await http.get("/people/Nobody")).status_code == 400

            people = (await http.get("/people")).text
            image = people.split('<img src="', 1)[1].split('"', 1)[0]
            png = await http.get(image)
            assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
            assert "The picture in words" in people and "Maya" in people.split("<figcaption>", 1)[1]
            years = (await http.get("/timeline")).text
            assert years.index("2019") < years.index("2024") and "Knee hurts again" in years
            march = (await http.get("/timeline?year=2024&month=3")).text
            assert "Marathon training starts" in march and "Moved to Lisbon" not in march
            assert f'data-locator="{places["knee"]}"' in march

            history = (await http.get("/bio/history?since=2020")).text
            assert '<span class="added">+ - Maya: my closest friend' in history

            found = (await http.get("/search", params={"q": "knee", "person": "Ana", "since": "2024-03",
                                                       "until": "2024-03", "kind": "whatsapp"})).text
            assert "Brutal. <mark>Knee</mark> hurts again" in found and ("passage matched" in found or "passages matched" in found)
            nothing = (await http.get("/search", params={"q": "knee", "since": "2030"})).text
            assert "nothing matched" in nothing
            everything = (await http.get("/search", params={"person": "Maya", "limit": 1})).text
            assert "Everything these filters keep" in everything and "cursor=" in everything
            bad = await http.get("/search", params={"q": "knee", "since": "someday"})
            assert bad.status_code == 400 and "not a date" in bad.text


HOSTILE = ('# Knee notes\n\n<script>alert("knee")</script> <img src=x onerror=alert(1)> my knee &amp; '
           'both knees</mark><mark>\nsecond line: "knee" <b>bold</b>\n')


async def test_search_results_mark_the_query_words_and_show_passages_as_text(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        folder = tmp_path / "hostile"
        folder.mkdir()
        (folder / "2024-04-09 knee.md").write_text(HOSTILE, encoding="utf-8")
        assert not (await server.service.memory.ingest([folder])).errors
        async with logged_in(server) as http:
            page = BeautifulSoup((await http.get("/search", params={"q": "what about my knees?",
                                                                    "mode": "keyword"})).text, "html.parser")
            ticked = BeautifulSoup((await http.get("/search", params={"q": "knee", "kind": "markdown"})).text,
                                   "html.parser")
        results = page.select("li.result")
        hostile = next(r for r in results if "Knee notes" in r.get_text())
        text = hostile.select_one("div.text")
        # the passage's own words, line breaks and all, with nothing of it taken for markup
        assert text.get_text() == HOSTILE.rstrip("\n")
        assert not hostile.select("script, img, b") and not page.select("main script")
        # the query's words marked wherever the index would find them ("knees" -> knee), stop words not
        assert [m.get_text() for m in text.select("mark")] == ["Knee", "knee", "knee", "knees", "knee"]
        chat = next(r for r in results if "WhatsApp with Maya" in r.get_text())
        head = chat.select_one("header")
        assert head.select_one("time").get_text() == "2024-03-14 08:15–08:20"  # first and last message (Lisbon)
        assert head.select_one(".people").get_text() == "Maya, Ana"  # in order of speaking
        scores = [float(r.select_one(".score meter")["value"]) for r in results]
        assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
        assert "Brutal. Knee hurts again" in chat.select_one("div.text").get_text()
        # kinds are checkboxes, the ticked ones kept
        boxes = {box["value"]: box.has_attr("checked") for box in ticked.select("fieldset.kinds input[type=checkbox]")}
        assert boxes == {"markdown": True, "whatsapp": False} and not ticked.select("select[multiple]")
        assert ticked.select("li.result") and all("Maya" not in r.get_text() for r in ticked.select("li.result"))


async def test_questions_without_a_model_say_so_and_keep_nothing(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        await seed_biography(server)
        [question] = await server.service.biographer.open_questions()
        sources = len(await server.service.sources())
        async with logged_in(server) as http:
            page = (await http.get("/questions")).text
            assert "No language model is configured" in page and "What took you to Porto?" in page
            answer = await http.post(f"/questions/{question.id}/answer",
                                     data={"csrf": csrf_of(page), "answer": "For the bakery job"})
            assert answer.status_code == 503 and "nothing was saved" in answer.text
            assert "For the bakery job" in answer.text  # the draft stays in its box
        assert len(await server.service.sources()) == sources
        assert [q.id for q in await server.service.biographer.open_questions()] == [question.id]


async def test_ask_without_a_model_says_what_to_set(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        async with logged_in(server) as http:
            page = BeautifulSoup((await http.get("/ask")).text, "html.parser")
            notice = page.select_one(".notice").get_text(" ", strip=True)
            assert "No language model is configured" in notice and "BIOGRAPHER_LLM_API_KEY" in notice
            assert page.select_one("#question").has_attr("disabled")
            csrf = page.select_one('meta[name="csrf-token"]')["content"]
            script = {"X-CSRF-Token": csrf, "Accept": "text/event-stream"}  # as the page's script asks
            refused = await http.post("/ask", data={"question": "Where do I live?"}, headers=script)
            assert refused.status_code == 503
            assert "no language model" in refused.json()["error"] and "BIOGRAPHER_LLM_BASE_URL" in refused.json()["hint"]
            forged = await http.post("/ask", data={"question": "Where do I live?"}, headers=script | {"X-CSRF-Token": "x"})
            assert forged.status_code == 403
            # the form posted without the script: a page that says the same
            plain = await http.post("/ask", data={"question": "Where do I live?", "csrf": csrf})
            assert plain.status_code == 503 and "BIOGRAPHER_LLM_API_KEY" in plain.text and "<html" in plain.text


def sse(body: str) -> list[tuple[str, dict]]:
    """Server-sent events as a reader of the protocol splits them (blank line, `event:`, `data:`)."""
    events = []
    for block in filter(None, body.split("\n\n")):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


async def test_ask_streams_events_and_a_failed_model_is_a_problem_with_its_hint(settings, tmp_path, fake_openai):
    llm = OpenAIChat(base_url=fake_openai.base_url, api_key="k", models={"chat": "fake"}, timeout=10, max_retries=0)
    try:
        async with running_server(settings, tmp_path, llm=llm) as server:
            async with logged_in(server) as http:
                token = csrf_of((await http.get("/ask")).text)
                csrf = {"X-CSRF-Token": token, "Accept": "text/event-stream"}
                assert (await http.post("/ask", data={"question": "  "}, headers=csrf)).status_code == 400
                # without the page's script the form gets the whole answer as a page, escaped and cited
                [hit] = await server.service.memory.search("Piranesi train Porto", limit=1, mode="keyword")
                fake_openai.call("search", {"query": "Piranesi"})
                fake_openai.reply(f'<img src=x onerror="alert(1)"> Piranesi, on the train [{hit.locator}].')
                plain = BeautifulSoup((await http.post("/ask", data={"question": "What did I read?", "csrf": token}
                                                       )).text, "html.parser")
                answer = plain.select_one("#ask-answer .answer")
                assert answer.get_text() == '<img src=x onerror="alert(1)"> Piranesi, on the train [1].'
                assert not plain.select("#ask-answer img")
                assert answer.select_one("a.cite")["href"] == f"/passage/{hit.locator}"
                assert plain.select_one("#question").get_text() == "What did I read?"
                assert not fake_openai.requests[-1].get("stream")
                fake_openai.call("grep", '{"pattern": "Porto"')  # broken JSON: fed back to the model
                fake_openai.fail(500, "upstream is down")
                answer = await http.post("/ask", data={"question": "Where did I move?"}, headers=csrf)
            assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
            events = sse(answer.text)
            assert events[:3] == [("reply", {}), ("step", {"words": "looking for every…"}), ("reply", {})]
            name, problem = events[-1]
            assert name == "problem" and "500" in problem["error"] and problem["hint"]
    finally:
        await llm.close()


async def test_ask_waits_its_turn_while_the_agent_is_busy_and_says_so(settings, tmp_path, fake_openai):
    llm = OpenAIChat(base_url=fake_openai.base_url, api_key="k", models={"chat": "fake"}, timeout=10, max_retries=0)
    gate, release, held = AgentGate(), asyncio.Event(), asyncio.Event()

    async def nightly_analysis() -> None:  # another run holding the agent (the scheduler, a bot)
        async with gate.turn():
            held.set()
            await release.wait()

    try:
        async with running_server(settings, tmp_path, llm=llm, gate=gate) as server:
            busy = asyncio.create_task(nightly_analysis())
            await held.wait()
            fake_openai.call("search", {"query": "Porto"})
            fake_openai.reply("Nothing about Porto.")
            async with logged_in(server) as http:
                csrf = {"X-CSRF-Token": csrf_of((await http.get("/ask")).text), "Accept": "text/event-stream"}
                async with http.stream("POST", "/ask", data={"question": "Porto?"}, headers=csrf) as answer:
                    lines = answer.aiter_lines()
                    assert await anext(lines) == "event: step"
                    assert "waiting: the biographer is busy" in await anext(lines)
                    await asyncio.sleep(0.3)
                    assert fake_openai.requests == []  # not a request until the other run is done
                    release.set()
                    rest = "\n".join([line async for line in lines])
            await busy
            assert "event: answer" in rest and "Nothing about Porto." in rest
    finally:
        await llm.close()


async def test_closing_the_page_while_it_answers_stops_the_run(settings, tmp_path, fake_openai):
    llm = OpenAIChat(base_url=fake_openai.base_url, api_key="k", models={"chat": "fake"}, timeout=10, max_retries=0)
    try:
        async with running_server(settings, tmp_path, llm=llm) as server:
            async with logged_in(server) as http:
                csrf = {"X-CSRF-Token": csrf_of((await http.get("/ask")).text), "Accept": "text/event-stream"}
                fake_openai.call("search", {"query": "Porto"})
                fake_openai.reply("A slow answer.", delay=5)
                fake_openai.reply("Never asked for.")
                async with http.stream("POST", "/ask", data={"question": "Where?"}, headers=csrf) as answer:
                    async for line in answer.aiter_lines():
                        if line.startswith("event: step"):
                            break  # the owner closes the tab
            for _ in range(100):
                run = await run_store.latest_run(server.service.memory.conn, "chat")
                if run is not None and run.status != "running":
                    break
                await asyncio.sleep(0.05)
            assert run.status == "failed" and run.steps == 1  # stopped and recorded, not left running
            assert len(fake_openai.requests) <= 2 and fake_openai.script[-1].content == "Never asked for."
    finally:
        await llm.close()


async def test_uploads_are_kept_inside_their_folder_and_within_the_limit(settings, tmp_path):
    settings = settings.model_copy(update={"page_max_upload_mb": 1})
    uploads = settings.data_dir / "uploads"
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with logged_in(server) as http:
            csrf = {"X-CSRF-Token": csrf_of((await http.get("/imports")).text)}
            job = (await http.post("/imports", headers=csrf)).json()
            up = await http.post(f"/imports/{job['id']}/files", params={"name": "../../2024-05-01 notes.md"},
                                 content=b"# Notes\n\nA zeppelin over the river.\n", headers=csrf)
            assert up.status_code == 200 and up.json()["files"] == ["2024-05-01 notes.md"]
            big = await http.post(f"/imports/{job['id']}/files", params={"name": "big.txt"},
                                  content=b"x" * (1024 * 1024 + 1), headers=csrf)
            assert big.status_code == 413
            started = (await http.post(f"/imports/{job['id']}/start", headers=csrf)).json()
            assert started["state"] in ("queued", "importing", "done")
            for _ in range(200):
                status = (await http.get(f"/imports/{job['id']}")).json()
                if status["state"] in ("done", "failed"):
                    break
                await asyncio.sleep(0.05)
            assert status["state"] == "done" and "1 new source" in status["summary"], status
            found = (await http.get("/search", params={"q": "zeppelin", "mode": "keyword"})).text
            assert "A <mark>zeppelin</mark> over the river." in found
        assert not any(uploads.iterdir())  # the upload folder is gone


def test_timeline_zoom_by_year_and_month():
    events = [TimelineEvent(1, "2019", "Moved to Lisbon"), TimelineEvent(2, "2024-03-14", "Knee"),
              TimelineEvent(3, "2024-03", "Training"), TimelineEvent(4, "2024-05-02", "Porto"),
              TimelineEvent(5, "someday", "Undated")] + [TimelineEvent(10 + i, f"2020-0{i + 1}", f"E{i}")
                                                         for i in range(7)]
    years = timeline_zoom(events)
    assert [(g.label, len(g.events), g.more) for g in years.groups] == [
        ("2019", 1, 0), ("2020", 5, 2), ("2024", 3, 0), ("undated", 1, 0)]
    assert years.groups[1].href == "/timeline?year=2020" and years.groups[3].href is None
    months = timeline_zoom(events, year=2024)
    assert [(g.label, [e.title for e in g.events]) for g in months.groups] == [
        ("March 2024", ["Training", "Knee"]), ("May 2024", ["Porto"])]
    assert timeline_zoom(events, year=2019).groups[0].label == "sometime in 2019"
    march = timeline_zoom(events, year=2024, month=3)
    assert [e.title for e in march.groups[0].events] == ["Training", "Knee"] and march.up == ("2024",
                                                                                             "/timeline?year=2024")


def test_markdown_shows_html_as_text_and_links_every_citation():
    html = render_markdown("## People\n- Maya <b>hi</b> [doc3:0-40, doc4:5-9]\n- `[doc1:0-5]` stays code\n")
    assert "&lt;b&gt;hi&lt;/b&gt;" in html
    assert html.count('class="cite"') == 2 and 'href="/passage/doc4:5-9"' in html
    assert "<code>[doc1:0-5]</code>" in html


def test_clients_add_web_prints_a_page_login(capsys):
    assert main(["clients", "add", "me", "--web"]) == 0
    out = capsys.readouterr().out
    assert "opens the local web page" in out and "bio_" in out and "http://127.0.0.1:8765/" in out
    assert main(["clients", "add", "x", "--web", "--allow", "search"]) == 2
    assert "takes no --allow" in capsys.readouterr().err
    assert main(["clients", "add", "y"]) == 2
    assert "--allow OPS (an agent) or --web" in capsys.readouterr().err


async def test_citations_on_person_pages_are_escaped_once(settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        places = await seed_biography(server)
        async with logged_in(server) as http:
            person = (await http.get("/people/" + quote("Maya"))).text
    assert f'<a class="cite" href="/passage/{places["chat"]}:0-60"' in person
    assert "&lt;a class" not in person and "&amp;lt;" not in person


async def _finished(http: httpx.AsyncClient, job_id: str) -> dict:
    for _ in range(200):
        status = (await http.get(f"/imports/{job_id}")).json()
        if status["state"] in ("done", "failed"):
            return status
        await asyncio.sleep(0.05)
    raise AssertionError(status)


async def test_an_import_that_breaks_unexpectedly_ends_failed_not_importing_forever(settings, tmp_path,
                                                                                     monkeypatch):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async def broken(*args, **kwargs):
            raise OSError(28, "No space left on device")  # not one of the store's own errors
        monkeypatch.setattr(server.parts.memory, "ingest", broken)
        async with logged_in(server) as http:
            csrf = {"X-CSRF-Token": csrf_of((await http.get("/imports")).text)}
            job = (await http.post("/imports", headers=csrf)).json()
            await http.post(f"/imports/{job['id']}/files", params={"name": "notes.md"}, content=b"# A note\n",
                            headers=csrf)
            assert (await http.post(f"/imports/{job['id']}/start", headers=csrf)).status_code == 200
            status = await _finished(http, job["id"])  # the page polls until one of these
            assert status["state"] == "failed", status
            assert "Could not import notes.md" in status["summary"] and "No space left" in status["summary"]


async def test_odd_uploads_are_kept_or_refused_in_one_shape(settings, tmp_path):
    settings = settings.model_copy(update={"page_max_upload_mb": 1})
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with logged_in(server) as http:
            csrf = {"X-CSRF-Token": csrf_of((await http.get("/imports")).text)}
            job = (await http.post("/imports", headers=csrf)).json()
            files = f"/imports/{job['id']}/files"
            long_name = "日記" * 60 + ".md"  # 363 bytes of UTF-8: over the 255 a file name may have
            for name, text in ((long_name, "The heron came back to the pond."),
                               ("notes.md", "Bought a kayak in Aveiro."), ("notes.md", "Sold the kayak in Porto.")):
                up = await http.post(files, params={"name": name}, content=text.encode(), headers=csrf)
                assert up.status_code == 200, up.text
            kept = up.json()["files"]
            assert kept[1:] == ["notes.md", "notes.md"] and kept[0].endswith(".md")
            assert len(kept[0].encode()) <= 255 and kept[0].startswith("日記")

            async def over_the_limit():  # chunked: no Content-Length to refuse it by
                for _ in range(20):
                    yield b"x" * 65536
            big = await http.post(files, params={"name": "big.txt"}, content=over_the_limit(), headers=csrf)
            assert big.status_code == 413 and set(big.json()) == {"error", "hint"}, big.text

            # a start while a file is still arriving is refused: nothing is imported half
            release = asyncio.Event()

            async def slow():
                yield b"# Slow\n\nThe first half of a chat"
                await release.wait()
                yield b", and its second half.\n"
            upload = asyncio.create_task(http.post(files, params={"name": "slow.md"}, content=slow(), headers=csrf))
            for _ in range(200):
                if (await http.get(f"/imports/{job['id']}")).json()["arriving"]:
                    break
                await asyncio.sleep(0.02)
            early = await http.post(f"/imports/{job['id']}/start", headers=csrf)
            assert early.status_code == 409 and "still arriving" in early.json()["error"], early.text
            release.set()
            assert (await upload).status_code == 200
            assert (await http.post(f"/imports/{job['id']}/start", headers=csrf)).status_code == 200
            status = await _finished(http, job["id"])
            assert status["state"] == "done" and "4 new sources" in status["summary"], status
            for words in ("heron", "Aveiro", "Porto", "second half"):
                found = (await http.get("/search", params={"q": words, "mode": "keyword"})).text
                assert "passage matched" in found or "passages matched" in found, words
