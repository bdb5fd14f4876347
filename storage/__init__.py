"""The only place with SQL: the single SQLite file, its migrations and repositories."""
