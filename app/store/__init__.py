"""Persistence: SQLModel tables, sessions and keyword-only data functions.

Modules: ``db`` (``Database``: the engine, ``session()``, ``status()``), ``models`` (all
tables), ``audit``, ``users``, ``tasks``, ``maintenance``, ``confirmations``,
``conversations``, ``page_sessions``, ``throttle`` and ``backups``. Data functions take a
session first; the caller owns it. (The reasoning log is a logger: ``app.reasoning``.)
"""
