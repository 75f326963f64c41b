"""Superset environments, the REST client and the environment registry."""

from app.superset.client import SupersetClient
from app.superset.environments import Environment
from app.superset.registry import EnvironmentRegistry, load_environments

__all__ = [
    "Environment",
    "EnvironmentRegistry",
    "SupersetClient",
    "load_environments",
]
