"""Progress: what each learner attempted and solved, and each problem's acceptance counts.

Listings read this maintained state instead of aggregating the submissions table, so their cost
does not grow with history. It is written in the same transaction as the fact it counts (a new
submission, a recorded verdict, a verdict reopened for re-judging) by ``app.submissions``, and it
can always be rebuilt from the submissions table (``torchdrill stats rebuild``).
"""
