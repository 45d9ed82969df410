"""Checks that test *how* a solution works: gradients, input integrity, random families, optimizers.

Each in-sandbox helper returns a :class:`~runner.records.check_value.CheckValue`: plain data the host compares
with the reference's (computed at import time, never in the sandbox), plus facts the host only uses to
word the failure message (:mod:`runner.judging.checks`). A check never decides a pass inside the learner's
process: whatever it measured there, the learner could patch.

This package imports no torch at import time: the host imports :mod:`runner.judging.checks` and
:mod:`runner.records.check_value` only; the sandbox-side modules import torch inside their functions.
"""
