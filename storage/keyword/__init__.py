"""The keyword index's text side: language detection, the tokenizer the FTS5 table is built with
(registered as a SQL function), the query syntax, and the reader that scores matches.

Pure text functions except reader.py; imports nothing of core."""
