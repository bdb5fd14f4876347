"""The page lists what agents saved, by client, and deletes a record whole (every version) as
`biographer saves delete` does; the delete is a post like any other: session, CSRF and origin."""

from __future__ import annotations

from tests.server.conftest import running_server
from tests.server.test_page import csrf_of, logged_in

NOTE = {"kind": "preference", "section": "notes"}


async def test_the_page_lists_saves_by_client_and_deletes_every_version(settings, tmp_path):
    async with running_server(settings, tmp_path, seeded=False) as server:
        async with server.http(await server.token("claude")) as claude:
            first = (await claude.post("/v1/save", json={**NOTE, "text": "Ana drinks Oolongravel tea"},
                                       headers={"Idempotency-Key": "a"})).json()
            corrected = (await claude.post("/v1/save", json={**NOTE, "text": "Ana drinks Oolongravel tea, no sugar",
                                                             "replaces": str(first["record"]),
                                                             "expected_hash": first["hash"]},
                                           headers={"Idempotency-Key": "b"})).json()
            assert corrected["record"] == first["record"] and corrected["version"] == 2
        async with server.http(await server.token("cursor")) as cursor:
            other = (await cursor.post("/v1/save", json={**NOTE, "text": "Ana reads Brambleshanty novels"},
                                       headers={"Idempotency-Key": "c"})).json()
        async with logged_in(server) as http:
            page = await http.get("/saves")
            assert page.status_code == 200
            assert "Oolongravel tea, no sugar" in page.text and "Brambleshanty" in page.text
            assert f"#{first['record']} preference in notes" in page.text and "by claude" in page.text
            only_cursor = (await http.get("/saves", params={"client": "cursor"})).text
            assert "Brambleshanty" in only_cursor and "Oolongravel" not in only_cursor

            refused = await http.post(f"/saves/{first['record']}/delete")  # no CSRF token
            assert refused.status_code == 403
            assert len(await server.service.save_shelf.list()) == 2
            csrf = {"X-CSRF-Token": csrf_of(page.text)}
            done = await http.post(f"/saves/{first['record']}/delete", headers=csrf)
            assert done.status_code == 303
            after = await http.get(done.headers["location"])
            assert f"Record #{first['record']} was deleted: 2 version(s) forgotten" in after.text
            assert "Oolongravel" not in after.text and "Brambleshanty" in after.text

            again = await http.post(f"/saves/{first['record']}/delete", headers=csrf)
            assert again.status_code == 404 and "no saved record" in again.text
            huge = await http.post("/saves/99999999999999999999999/delete", headers=csrf)
            assert huge.status_code == 400
        assert [v.record_id for v in await server.service.save_shelf.list()] == [other["record"]]
        async with server.http(await server.token("owner-check")) as owner:
            for locator in (first["locator"], corrected["locator"]):
                assert (await owner.post("/v1/read", json={"locator": locator})).status_code == 404
            found = (await owner.post("/v1/search", json={"query": "Oolongravel", "mode": "keyword"})).json()
            assert found["outcome"] == "nothing_matched"
