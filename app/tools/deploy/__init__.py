"""The deploy family: copy dashboards between environments.

``spec.py`` says what each tool is (pure), ``run.py`` does it (the family's I/O); its
results are shown by the generic views of :mod:`app.views`.
"""
