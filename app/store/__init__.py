"""Persistence: SQLModel tables, sessions and keyword-only data functions.

Modules: ``db`` (engine, ``session_scope``, ``db_status``), ``models`` (all tables),
``audit``, ``users``, ``tasks``, ``maintenance``, ``confirmations``, ``conversations``,
``backups`` and ``cot`` (the structured CoT logger). Data functions take a session first;
the caller owns it.
"""
