"""ss-tools agent: the operator's chat for Apache Superset."""

__version__ = "0.1.0"
