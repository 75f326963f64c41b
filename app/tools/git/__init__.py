"""The git family: branches and commits of exported dashboards.

``spec.py`` says what each tool is (pure), ``run.py`` does it (the family's I/O); its
results are shown by the generic views of :mod:`app.views`.
"""
