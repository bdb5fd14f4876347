"""The schema, as numbered migrations: one module per part of the product (see storage/migrations.py).

Imports storage.migrations only (and storage.keyword for the index's language column)."""
