"""Concrete implementations of the ports in core/ports.py (models: embeddings, chat, speech, vision).

May import the shared vocabulary only; the composition root (bot/compose.py) picks among them."""
