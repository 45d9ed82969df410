"""Code drafts: each learner's unsaved work per problem, kept on the server so it follows them across devices.

Also home of the learner's progress-over-time data (``progress.py``), which reads submissions only.
"""
