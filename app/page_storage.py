"""Where NiceGUI keeps the pages' storage: a private folder in the data dir (no other
account on the machine reads a page's state).

NiceGUI writes ``app.storage.user`` to ``storage-user-<browser id>.json`` under
``Storage.path`` (``./.nicegui`` in the working directory by default, world-readable).
The pages keep no token there any more (see :mod:`app.pages.session`), and the folder
moves to ``<data_dir>/pages`` with mode 0700; files already there are tightened to 0600,
and the server process runs with umask 077 (main.py) so new ones are created 0600.
"""

from __future__ import annotations

import os
from pathlib import Path

from nicegui.storage import Storage

FOLDER = "pages"


def private_page_storage(data_dir: Path) -> Path:
    """Point NiceGUI's page storage at ``<data_dir>/pages`` (0700, files 0600)."""
    path = (data_dir / FOLDER).resolve()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    for item in path.glob("storage-*.json"):
        os.chmod(item, 0o600)
    Storage.path = path
    return path
