"""How the composition root sets up acting in Superset as the person.

:func:`serve_people` gives the registry its :class:`~app.superset.accounts.Accounts`
(links sealed with the configured keys, assertions signed with the configured key) and
its pool bound, and stops start-up when an environment cannot act as its people: a
person environment needs a secret key to seal links (``SS_TOOLS_SECRET_KEY``), an
assertion environment a signing key (``SS_TOOLS_SUPERSET_ASSERTION_KEY_FILE``); dev mode
generates both into the data dir.
"""

from __future__ import annotations

from app.errors import ConfigError
from app.settings import Settings
from app.store.db import Database
from app.superset.accounts import Accounts
from app.superset.assertions import load_signer
from app.superset.registry import EnvironmentRegistry
from app.superset.sealing import load_sealer


def _ids(registry: EnvironmentRegistry, mode: str) -> list[str]:
    return [e.id for e in registry.environments.values() if e.identity == mode]


def serve_people(registry: EnvironmentRegistry, settings: Settings, db: Database) -> Accounts:
    """Set ``registry.accounts`` (and its pool bound) from the settings; ConfigError naming
    the environments when a key they need is missing."""
    persons, asserted = _ids(registry, "person"), _ids(registry, "assertion")
    sealer = load_sealer(settings) if persons or settings.secret_key else None
    if persons and sealer is None:
        raise ConfigError(
            f"environment(s) {', '.join(persons)} have identity = 'person': set "
            "SS_TOOLS_SECRET_KEY (or SS_TOOLS_SECRET_KEY_FILE) to seal linked accounts"
        )
    wants_signer = asserted or settings.superset_assertion_key_file is not None
    signer = load_signer(settings) if wants_signer else None
    if asserted and signer is None:
        raise ConfigError(
            f"environment(s) {', '.join(asserted)} have identity = 'assertion': set "
            "SS_TOOLS_SUPERSET_ASSERTION_KEY_FILE (an RSA private key in PEM)"
        )
    accounts = Accounts(
        db,
        sealer=sealer,
        signer=signer,
        header=settings.superset_assertion_header,
        transport=registry.transport,
    )
    registry.accounts = accounts
    registry.max_clients = settings.superset_clients_max
    return accounts
