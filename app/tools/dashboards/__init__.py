"""The dashboards family: search, health, validation, documentation and delete of dashboards.

``spec.py`` says what each tool is (pure), ``run.py`` does it (the family's I/O);
``view.py`` shows its results.
"""
