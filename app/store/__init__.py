"""Persistence: SQLModel tables, sessions and keyword-only data functions.

Modules: ``db`` (``Database``: the engine, ``session()``, ``status()``), ``models`` (all
tables), ``audit``, ``users``, ``tasks``, ``maintenance``, ``confirmations``,
``conversations``, ``page_sessions``, ``throttle``, ``backups`` and ``undo`` (undoable
changes: its own table, beside its functions). Data functions take a
session first; the caller owns it. (The reasoning log is a logger: ``app.reasoning``.)

Replicas on one PostgreSQL coordinate through ``run_locks`` (one run per conversation)
and ``run_signals`` (a stop from any replica; its rows: ``run_rows``, its PostgreSQL side:
``run_signals_pg``), on dedicated connections (``pg_link``, ``pg_listener``).
"""
