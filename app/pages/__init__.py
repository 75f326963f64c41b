"""The NiceGUI pages: /agent (chat), /login, /audit. Importing this package registers them."""

from app.pages import agent, audit, login

__all__ = ["agent", "audit", "login"]
