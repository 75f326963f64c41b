"""The meta family: what the agent can do here, the environments, a task's status.

``spec.py`` says what each tool is (pure), ``run.py`` does it (the family's I/O);
``view.py`` shows its results.
"""
