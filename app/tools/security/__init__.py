"""The security family: the permission audit.

``spec.py`` says what each tool is (pure), ``run.py`` does it (the family's I/O);
``view.py`` shows its results.
"""
