"""The local web page in a real headless browser: the system's Chromium driven by Playwright
against the real server. One browser for the module; each test its own server and store.

Needs `apt-get install chromium` (.ci/run installs it) and the dev extras (playwright, never its
own browser download)."""

from __future__ import annotations

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


async def test_upload_an_export_and_find_it_in_search(browser, settings, tmp_path):
    export = whatsapp_export(tmp_path / "WhatsApp Chat with Teo.txt", [
        "02/05/2024, 18:00 - Teo: The zeppelin museum in Friedrichshafen opens at nine",
        "02/05/2024, 18:02 - Ana: Then we take the first ferry over the lake",
    ])
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with logged_in_page(browser, server) as page:
            await page.click("nav >> text=Import")
            await page.set_input_files("#files", str(export))
            await page.locator("#import[data-state=done]").wait_for()
            summary = await page.locator("#import-summary").inner_text()
            assert "Imported WhatsApp Chat with Teo.txt: 1 new source(s), 2 messages" in summary
            await page.click("#import-next >> text=Search what you imported")
            await page.fill("#q", "zeppelin museum")
            await page.press("#q", "Enter")
            result = page.locator("li.result").first
            await result.wait_for()
            text = await result.inner_text()
            assert "WhatsApp with Teo" in text and "The zeppelin museum in Friedrichshafen" in text


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

