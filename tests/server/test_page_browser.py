"""The local web page in a real headless browser: the system's Chromium driven by Playwright
against the real server. One browser for the module; each test its own server and store.

Needs `apt-get install chromium` (.ci/run installs it) and the dev extras (playwright, never its
own browser download)."""

from __future__ import annotations

import asyncio
import re
import shutil
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import pytest_asyncio

from core.providers.openai_chat import OpenAIChat
from tests.core.helpers import whatsapp_export
from tests.server.conftest import Running, running_server
from tests.server.test_page import page_token, seed_biography

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed: apt-get install chromium chromium-driver (.ci/run installs it)")
    playwright_api = pytest.importorskip("playwright.async_api", reason="playwright is a dev extra: ./setup.sh")
    async with playwright_api.async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        await launched.close()


@asynccontextmanager
async def logged_in_page(browser, server: Running) -> AsyncIterator:
    """A fresh browser profile that has logged in through the login form."""
    context = await browser.new_context(base_url=server.url)
    page = await context.new_page()
    page.set_default_timeout(15_000)
    await page.goto("/bio")
    assert "/login" in page.url  # no cookie yet: sent to log in
    await page.fill("#token", await page_token(server))
    await page.click("button[type=submit]")
    await page.wait_for_url("**/bio")
    try:
        yield page
    finally:
        await context.close()


async def test_log_in_read_bio_and_open_a_cited_passage_beside_it(browser, settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        places = await seed_biography(server)
        async with logged_in_page(browser, server) as page:
            assert await page.locator("article.bio h2", has_text="People & Relationships").count() == 1
            passage = page.locator("aside#passage")
            assert await passage.is_hidden()
            await page.click(f'article.bio a.cite[data-locator="{places["knee"]}"]')
            await passage.locator(".text").wait_for()
            assert "Brutal. Knee hurts again" in await passage.locator(".text").inner_text()
            meta = await passage.locator(".meta").first.inner_text()
            assert "2024-03-14 08:15" in meta and "Ana" in meta and "Maya" in meta
            assert await passage.locator("h2").inner_text() == "WhatsApp with Maya"
            assert page.url.endswith("/bio")  # read beside the text, not instead of it
            await passage.locator("button.close").click()
            assert await passage.is_hidden()

            await page.click("nav >> text=Timeline")
            await page.click("a[href='/timeline?year=2024']")
            assert await page.locator("h1").inner_text() == "2024 2 events"
            await page.click("text=March 2024")
            assert await page.locator("ul.events li").count() == 2


async def test_a_request_without_the_cookie_is_refused(browser, settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        context = await browser.new_context(base_url=server.url)
        try:
            page = await context.new_page()
            await page.goto("/questions")
            assert page.url.endswith("/login?next=/questions")
            assert await page.locator("#token").count() == 1
            posted = await context.request.post("/questions/1/answer", form={"answer": "x", "csrf": "x"},
                                                max_redirects=0)
            assert posted.status == 401
        finally:
            await context.close()


async def test_answer_an_open_question_in_its_text_box(browser, settings, tmp_path, fake_openai):
    llm = OpenAIChat(base_url=fake_openai.base_url, api_key="test-key", models={"chat": "fake", "analysis": "fake"},
                     timeout=10, max_retries=0)
    try:
        async with running_server(settings, tmp_path, llm=llm) as server:
            await seed_biography(server)
            [question] = await server.service.biographer.open_questions()
            answer_doc = max(s.id for s in await server.service.sources()) + 1  # the answer is kept as a source
            fake_openai.call("edit_profile", {"old_text": "", "section": "Identity",
                                              "new_text": f"- Moved to Porto for the bakery job [doc{answer_doc}:0-60]"})
            fake_openai.reply(f"Thank you! I added why you moved to Porto [doc{answer_doc}:0-60].")
            async with logged_in_page(browser, server) as page:
                await page.click("nav >> text=Questions")
                await page.fill(f"#answer-{question.id}", "I moved for the job at the bakery.")
                await page.click(f"#question-{question.id} button[type=submit]")
                reply = page.locator("section.reply")
                await reply.wait_for()
                assert "Thank you! I added why you moved to Porto" in await reply.inner_text()
                await reply.locator("a.cite").first.click()
                await page.locator("aside#passage .text").wait_for()
                assert "the owner: I moved for the job" in await page.locator("aside#passage").inner_text()
                assert await page.locator(f"#question-{question.id}").count() == 0  # answered: no longer open
                await page.click("nav >> text=bio.md")
                assert "Moved to Porto for the bakery job" in await page.locator("article.bio").inner_text()
            sent = fake_openai.requests[0]["messages"][-1]["content"]
            assert "What took you to Porto?" in sent and "I moved for the job at the bakery." in sent
    finally:
        await llm.close()


async def test_ask_shows_the_steps_then_the_answer_as_it_is_written_with_its_citations(
        browser, settings, tmp_path, fake_openai):
    llm = OpenAIChat(base_url=fake_openai.base_url, api_key="test-key", models={"chat": "fake", "analysis": "fake"},
                     timeout=10, max_retries=0)
    try:
        async with running_server(settings, tmp_path, llm=llm) as server:
            [hit] = await server.service.memory.search("Piranesi train Porto", limit=1, mode="keyword")
            train = str(hit.locator)
            fake_openai.call("search", {"query": "Porto"})
            fake_openai.call("read_source", {"locator": train})
            words = f"You started reading Piranesi on the train to Porto, in May 2024 [{train}]."
            fake_openai.reply(words, delay=0.6, pace=0.25)
            async with logged_in_page(browser, server) as page:
                await page.click("nav >> text=Ask")
                await page.fill("#question", "What did I read on the way to Porto?")
                await page.click("form#ask button[type=submit]")
                steps = page.locator("#ask-steps li")
                await steps.nth(1).wait_for()
                assert await steps.all_inner_texts() == ["searching 'Porto'…", f"reading {train.split(':')[0]}…"]
                assert await page.locator("#asked[data-state=asking]").count() == 1  # steps shown before the answer
                seen: list[str] = []  # the draft as it grows, word by word
                while await page.locator("#asked[data-state=asking]").count():
                    draft = await page.locator("#ask-draft").inner_text()
                    if draft and (not seen or draft != seen[-1]):
                        seen.append(draft)
                    await page.wait_for_timeout(60)
                assert len(seen) >= 4 and all(words.startswith(d.strip()) for d in seen), seen
                assert len(seen[0]) < len(seen[-1])
                answer = page.locator("#ask-answer .answer")
                assert await answer.inner_text() == "You started reading Piranesi on the train to Porto, in May 2024 [1]."
                assert await page.locator("#ask-draft").inner_text() == ""  # the draft gave way to the checked answer
                await answer.locator("a.cite", has_text="[1]").click()
                await page.locator("aside#passage .text").wait_for()
                assert "Started reading Piranesi on the train to Porto." in await page.locator("aside#passage .text").inner_text()
                assert page.url.endswith("/ask")
                cited = page.locator("#ask-answer ol.citations a.cite")
                assert await cited.get_attribute("data-locator") == train
                assert await cited.inner_text() == "2024-05-20 journal.md, 2024-05-20"  # its day where the owner lives
            sent = fake_openai.requests[0]
            assert sent["stream"] is True and sent["messages"][-1]["content"] == "What did I read on the way to Porto?"
    finally:
        await llm.close()


async def test_upload_an_export_and_find_it_in_search(browser, settings, tmp_path):
    export = whatsapp_export(tmp_path / "WhatsApp Chat with Teo.txt", [
        "02/05/2024, 18:00 - Teo: The zeppelin museum in Friedrichshafen opens at nine",
        "02/05/2024, 18:02 - Ana: Then we take the first ferry over the lake",
    ])
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with logged_in_page(browser, server) as page:
            await page.click("nav >> text=Import")
            await page.set_input_files("#files", str(export))
            # an import reads, chunks and embeds in the server: on two cores shared with the rest
            # of the suite it took past the page's 15 s (about 2 s alone)
            await page.locator("#import[data-state=done], #import[data-state=failed]").wait_for(timeout=90_000)
            summary = await page.locator("#import-summary").inner_text()
            status = await page.locator("#import").inner_text()
            assert await page.locator("#import").get_attribute("data-state") == "done", status
            assert "Imported WhatsApp Chat with Teo.txt: 1 new source, 2 messages" in summary
            await page.click("#import-next >> text=Search what you imported")
            await page.fill("#q", "zeppelin museum")
            await page.press("#q", "Enter")
            result = page.locator("li.result").first
            await result.wait_for()
            text = await result.inner_text()
            assert "WhatsApp with Teo" in text and "The zeppelin museum in Friedrichshafen" in text


async def test_a_file_chosen_before_the_page_script_runs_is_imported(browser, settings, tmp_path):
    """The page's script is deferred, and a loaded server sends it late: a file chosen before it
    ran had no listener for its change event, so nothing was imported and nothing said (the upload
    test above hung so, 90 s, when the suite loaded the machine)."""
    export = whatsapp_export(tmp_path / "WhatsApp Chat with Teo.txt", [
        "02/05/2024, 18:00 - Teo: The zeppelin museum in Friedrichshafen opens at nine",
    ])
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with logged_in_page(browser, server) as page:
            chosen = asyncio.Event()

            async def late(route) -> None:
                await chosen.wait()  # the script arrives only once the file is chosen
                await route.continue_()

            await page.route("**/static/page.js", late)
            await page.click("nav >> text=Import")
            await page.set_input_files("#files", str(export))
            assert await page.locator("#import").is_hidden()  # the script has not run yet
            chosen.set()
            await page.locator("#import[data-state=done], #import[data-state=failed]").wait_for()
            status = await page.locator("#import").inner_text()
            assert await page.locator("#import").get_attribute("data-state") == "done", status
            assert "Imported WhatsApp Chat with Teo.txt: 1 new source, 1 message" in \
                await page.locator("#import-summary").inner_text()


@contextmanager
def forger(html: str) -> Iterator[int]:
    """Another web site on this machine: serves one page (on 127.0.0.1, reachable as localhost too)."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def test_a_forged_cross_site_post_is_refused(browser, settings, tmp_path):
    async with running_server(settings, tmp_path) as server:
        await seed_biography(server)
        [latest, *_] = await server.service.biographer.book.history()
        target = f"{server.url}/bio/undo/{latest.id}"
        evil = (f'<form id="f" method="post" action="{target}"><input name="csrf" value="guessed"></form>'
                '<script>document.getElementById("f").submit()</script>')
        with forger(evil) as port:
            async with logged_in_page(browser, server) as page:
                # another site (localhost is not 127.0.0.1): SameSite=Strict keeps the cookie home
                async with page.expect_response(target) as answer:
                    await page.goto(f"http://localhost:{port}/")
                assert (await answer.value).status == 401
                # another port of the same host is the "same site": the cookie goes, the CSRF check stops it
                async with page.expect_response(target) as answer:
                    await page.goto(f"http://127.0.0.1:{port}/")
                assert (await answer.value).status == 403
                await page.wait_for_url(target)
                assert "refused" in await page.locator(".problem").inner_text()
        assert (await server.service.biographer.book.history())[0].id == latest.id  # nothing was undone



# ------------------------------------------------------------------ a phone's screen

PHONE = {"width": 390, "height": 844}
#: what a page's path parameters are filled with (names the seeded store has); others get "x"
#: and whatever HTML comes back (an error page) must fit the screen too
EXTRA = {"/search": "?q=knee&mode=keyword", "/bio/history": "?since=2020", "/timeline": "?year=2024&month=3"}
LONG_NOTE = ("# A very long line\n\nhttps://example.org/" + "a-path-with-no-spaces-" * 12 + "\n\n"
             "Knee" + "e" * 120 + " and a knee.\n")

# a phone widens its layout viewport (innerWidth) to content wider than the screen and zooms out,
# so the screen's own width is the measure
OVERFLOW = """(screen) => {
  const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > screen + 1);
  return {scroll: document.documentElement.scrollWidth, inner: innerWidth,
          wide: wide.slice(0, 5).map((e) => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') +
                                          ' ' + Math.round(e.getBoundingClientRect().right) + 'px')};
}"""


def page_routes(server: Running) -> list[str]:
    """Every GET path the page's own app serves (read from its router, not listed here)."""
    from starlette.routing import Route

    from bot.server.oauth import OAuthSite
    from bot.server.page import build_page
    from bot.server.page.guard import PageConfig

    def walk(routes, prefix: str = "") -> Iterator[Route]:
        for route in routes:
            if isinstance(route, Route):
                yield route if not prefix else Route(prefix + route.path, route.endpoint, methods=route.methods)
            elif getattr(route, "original_router", None) is not None:  # FastAPI keeps included routers whole
                yield from walk(route.original_router.routes, prefix + route.include_context.prefix)

    app = build_page(server.serving, PageConfig.for_server(bind_host="127.0.0.1", extra_hosts=[], session_hours=1,
                                                           max_upload_mb=1), site=OAuthSite.at(server.url))
    return [r.path for r in walk(app.routes) if "GET" in (r.methods or ())]


def filled(path: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        path = path.replace("{" + name + "}", value).replace("{" + name + ":path}", value)
    return re.sub(r"\{[^}]+\}", "x", path) + EXTRA.get(path, "")


async def fits(page, what: str, shots: Path) -> None:
    """The page as a phone shows it: screenshot kept, and nothing wider than the screen."""
    name = re.sub(r"[^a-z0-9]+", "-", what.lower()).strip("-") or "root"
    await page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    measured = await page.evaluate(OVERFLOW, PHONE["width"])
    assert measured["scroll"] <= PHONE["width"] and measured["inner"] == PHONE["width"], \
        f"{what} is {measured['scroll']} px wide on a {PHONE['width']} px screen: {measured['wide']}"


async def test_every_page_fits_a_phone_screen(browser, settings, tmp_path):
    shots = tmp_path / "phone"
    shots.mkdir()
    async with running_server(settings, tmp_path) as server:
        places = await seed_biography(server)
        notes = tmp_path / "long"
        notes.mkdir()
        (notes / "2024-04-10 a-very-long-file-name-without-any-spaces-in-it-at-all.md").write_text(LONG_NOTE)
        assert not (await server.service.memory.ingest([notes])).errors
        values = {"locator": places["knee"], "name": "Maya"}
        context = await browser.new_context(base_url=server.url, viewport=PHONE, device_scale_factor=1,
                                            is_mobile=True, has_touch=True)
        try:
            page = await context.new_page()
            page.set_default_timeout(15_000)
            await page.goto("/login")
            await fits(page, "login", shots)
            await page.fill("#token", await page_token(server))
            await page.click("button[type=submit]")
            await page.wait_for_url("**/bio")
            pages = 0
            for path in page_routes(server):
                url = filled(path, values)
                asked = await page.request.get(url)  # the browser's cookies, without rendering it
                if not asked.headers.get("content-type", "").startswith("text/html"):
                    continue  # an asset, a picture, a job's JSON: nothing to lay out
                await page.goto(url)
                pages += 1
                await fits(page, path, shots)
            assert pages >= 9, pages  # bio, history, passage, timeline, people, a person, questions, search, imports

            await page.goto("/people/Nobody")  # an error page
            await fits(page, "error", shots)
            await page.goto("/bio")  # the cited passage opened under the text
            await page.locator("article.bio a.cite").first.click()
            await page.locator("aside#passage .text").wait_for()
            await fits(page, "bio with its passage", shots)
            await page.goto("/search?q=knee&mode=keyword")
            assert await page.locator("li.result mark").count() >= 2  # the long note's results were laid out too
        finally:
            await context.close()
        assert all(shot.stat().st_size > 1000 for shot in shots.iterdir())
