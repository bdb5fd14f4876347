"""Tables of the memory server's OAuth authorization server (remote MCP connectors): the apps
registered, the codes given on the consent page, and the tokens issued, all tokens and codes as
digests only. What the owner granted is a row of `clients`, so `clients list/revoke` covers it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.migrations import migration, run_statements

if TYPE_CHECKING:
    from storage.db import Store


@migration(176)
async def m176_oauth(conn: Store) -> None:
    await run_statements(
        conn,
        [
            # an app that may ask the owner for access (RFC 7591 registration): its metadata as sent,
            # checked; public clients only, so no secret to keep
            """CREATE TABLE oauth_apps (
                client_id TEXT PRIMARY KEY,
                metadata TEXT NOT NULL,
                registered_at TEXT NOT NULL
            )""",
            # set on a client made by the owner's consent: the app it was granted to. Such a client
            # has no bearer token of its own (its key_id matches no token), only OAuth tokens
            "ALTER TABLE clients ADD COLUMN oauth_app TEXT",
            # a code the consent page gave the app; exchanged once for the grant (used_by)
            """CREATE TABLE oauth_codes (
                code_digest TEXT PRIMARY KEY,
                app TEXT NOT NULL,
                name TEXT NOT NULL,
                operations TEXT NOT NULL,
                sections TEXT NOT NULL,
                code_challenge TEXT NOT NULL,
                redirect_uri TEXT NOT NULL,
                redirect_uri_explicit INTEGER NOT NULL,
                resource TEXT,
                expires_at TEXT NOT NULL,
                used_by INTEGER REFERENCES clients(id) ON DELETE CASCADE
            )""",
            # access and refresh tokens of a grant (a clients row: revoking it ends them all); a
            # refresh token is used once (used_at), and shown again it ends its whole grant
            """CREATE TABLE oauth_tokens (
                digest TEXT PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
                client_id INTEGER NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
                operations TEXT NOT NULL,
                resource TEXT,
                expires_at TEXT NOT NULL,
                used_at TEXT
            )""",
            "CREATE INDEX oauth_tokens_client ON oauth_tokens(client_id)",
            "CREATE INDEX oauth_codes_expiry ON oauth_codes(expires_at)",
            "CREATE INDEX oauth_codes_used_by ON oauth_codes(used_by)",
        ],
    )
