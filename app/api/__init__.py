"""HTTP API (JSON and SSE) on NiceGUI's FastAPI app. Each module exports ``router``; the
routes reach the app's parts through :mod:`app.api.deps` (``create_app`` includes them)."""
