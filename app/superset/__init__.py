"""Superset environments, the REST client and the environment registry."""

from app.superset.client import SupersetClient
from app.superset.environments import Environment, load_environments
from app.superset.registry import (
    EnvironmentRegistry,
    get_registry,
    reset_registry,
    set_registry,
)

__all__ = [
    "Environment",
    "EnvironmentRegistry",
    "SupersetClient",
    "get_registry",
    "load_environments",
    "reset_registry",
    "set_registry",
]
