"""The biographer agent: the tool loop, its tools, citation checks and prompts."""
