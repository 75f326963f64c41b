"""The backup family: backups: take, list, restore (``store.py``: where they are kept).

``spec.py`` says what each tool is (pure), ``run.py`` does it (the family's I/O);
``view.py`` shows its results.
"""
