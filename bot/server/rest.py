"""REST under /v1: JSON in and out, `Authorization: Bearer TOKEN`. Handlers parse, call the
shared operations, answer; errors become statuses in bot/server/errors.py."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Header, Path, Request, Security
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from bot.server.operations import Operations
from bot.server.schemas import (CapabilitiesOut, DeleteOut, DeleteRequest, ErrorOut, ListOut, ListRequest, ReadOut,
                                ReadRequest, SaveOut, SaveRequestBody, SearchOut, SearchRequest)
from core.serving.clients import Client
from core.errors import UserFacingError

router = APIRouter(prefix="/v1")

_ERRORS = {status: {"model": ErrorOut, "description": what} for status, what in (
    (400, "bad input, said in one line"), (401, "no token, or a bad or revoked one"),
    (403, "this client may not do that, or not in that section"), (413, "request body too large"),
    (429, "over this client's rate limit (see Retry-After)"))}


#: declared in /openapi.json (components.securitySchemes.bearer, and on every operation), so
#: generated clients and ChatGPT Actions know to send the token; the door checks it, not FastAPI
#: (auto_error=False), so a refusal keeps the API's own 401 and its hint
bearer = HTTPBearer(scheme_name="bearer", auto_error=False,
                    description="a client token from `biographer clients add NAME --allow OPS` (bio_...)")


async def admitted(request: Request,
                   _declared: HTTPAuthorizationCredentials | None = Security(bearer)) -> Client:
    """The client the bearer token names (401 otherwise), within its rate limit (429 otherwise)."""
    return await request.app.state.door.admit(request.headers.get("authorization"))


def operations(request: Request) -> Operations:
    return request.app.state.operations


@router.get("/capabilities", response_model=CapabilitiesOut, responses=_ERRORS, operation_id="capabilities",
            summary="What this token may do and see, the limits, and the state of the index")
async def capabilities(request: Request, client: Client = Depends(admitted)) -> dict:
    return await operations(request).capabilities(client)


@router.post("/search", response_model=SearchOut, operation_id="search",
             responses={**_ERRORS, 503: {"model": SearchOut, "description": "search is unavailable (outcome says why)"}},
             summary="Ranked passages for a question; says whether nothing matched or the index is still building")
async def search(body: SearchRequest, request: Request, client: Client = Depends(admitted)) -> dict | JSONResponse:
    answer = await operations(request).search(client, body)
    if answer["outcome"] == "unavailable":
        return JSONResponse(answer, status_code=503)
    return answer


@router.post("/read", response_model=ReadOut, operation_id="read",
             responses={**_ERRORS, 404: {"model": ErrorOut, "description": "no such source"},
                        409: {"model": ErrorOut, "description": "the source changed since the given generation or "
                                                                "hash (removed or corrected)"}},
             summary="The exact text at a locator, with its senders, time and source")
async def read(body: ReadRequest, request: Request, client: Client = Depends(admitted)) -> dict:
    return await operations(request).read(client, body)


@router.post("/list", response_model=ListOut, operation_id="list", responses=_ERRORS,
             summary="Every passage the filters keep, unranked, a page at a time (stable cursors)")
async def list_items(body: ListRequest, request: Request, client: Client = Depends(admitted)) -> dict:
    return await operations(request).list(client, body)


@router.post("/save", response_model=SaveOut, operation_id="save",
             responses={**_ERRORS, 409: {"model": ErrorOut, "description": "the record changed since expected_hash, "
                                                                           "or the key was used for another save"}},
             summary="Keep a note, preference, decision, recommendation or link in the agents' own section")
async def save(body: SaveRequestBody, request: Request, client: Client = Depends(admitted),
               idempotency_key: str | None = Header(None, alias="Idempotency-Key", max_length=200,
                                                    description="a unique string per save (a UUID); a retry with "
                                                                "the same key returns the first record")) -> dict:
    if not idempotency_key:
        raise UserFacingError("no Idempotency-Key header", hint="send a unique one per save (a UUID) and the same "
                                                                 "one when retrying, so a retry never saves twice")
    return await operations(request).save(client, body, idempotency_key=idempotency_key)


@router.delete("/saves/{record}", response_model=DeleteOut, operation_id="delete",
               responses={**_ERRORS, 404: {"model": ErrorOut, "description": "no such record of this client's"}},
               summary="Forget a record this client saved, every version of it (needs the delete scope)")
async def delete(request: Request, record: int = Path(ge=1, le=2**62), client: Client = Depends(admitted)) -> dict:
    return await operations(request).delete(client, DeleteRequest(record=record))
