"""The sql family: databases and SQL: explore, format, run, create a dataset.

``spec.py`` says what each tool is (pure), ``run.py`` does it (the family's I/O);
``view.py`` shows its results.
"""
