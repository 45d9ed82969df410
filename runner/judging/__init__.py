"""The host's judging: a sandbox run's values and events, with the reference's trusted
expectations, become per-case statuses, messages and a verdict (``results.build_result``).
Nothing here runs inside the sandbox.
"""
