"""What crosses the sandbox's wall, shared by both sides: values as JSON (``values.py``), the
checks' values (``check_value.py``), the events' MAC (``events.py``) and the one rule for text
read out of the sandbox (``text.py``). Imports no other part of the runner.
"""
