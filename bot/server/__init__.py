"""The memory server: the owner's memory for their other agents, over REST (/v1) and MCP (/mcp),
behind per-client bearer tokens. One Starlette (FastAPI) app; the page (/login) mounts beside."""
