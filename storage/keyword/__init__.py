"""The keyword index's text side: language detection, the tokenizer the FTS5 table is built with
(registered as a SQL function), the query syntax, and the reader that scores matches; beside
FTS5, its postings as arrays (postings.py writes them, scoring.py computes FTS5's bm25 from them).

Pure text functions except reader.py, postings.py and scoring.py; imports nothing of core."""
