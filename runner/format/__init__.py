"""The problem format: a problem folder (``problem.py``), the bank's tracks (``tracks.py``),
arguments as data, and as text a learner types (``inputs.py``), custom input (``custom.py``), and the bar a
problem must meet (``validate.py``, by running it; ``quality.py``, the shipped bank's).
"""
