"""What the owner sends from a chat: forwards grouped and saved under their original senders,
voice notes and photos captured as journal entries, and the inbox that keeps them until saved.

May import the shared vocabulary, core.memory and storage."""
