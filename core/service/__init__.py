"""The faces the callers see, one per kind of caller: chat (the bots), serving (the memory server
and the page), schedule (the scheduler's jobs), admin (the CLI); all built by bot/compose.py over
one set of Parts. A front end imports only its own facet; facets may import all of core and storage."""
