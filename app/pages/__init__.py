"""The NiceGUI pages: /agent (chat), /login, /audit, /approvals (four-eyes), and the
/agent page's controller.

Importing this package registers nothing: ``create_app`` imports each module of
:data:`PAGE_MODULES`, which registers its ``@ui.page``. So the page controller
(``app.pages.agent_controller``) can be imported and tested without any page.
"""

PAGE_MODULES = ("app.pages.agent_page", "app.pages.audit", "app.pages.login", "app.pages.approvals")

__all__ = ["PAGE_MODULES"]
