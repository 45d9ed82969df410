"""REST API v1 (``/api/v1``): bearer-token auth, JSON in and out, one error shape.

Routers here are thin: they parse and authorise, then call the same domain services as the
pages (``app.accounts``, ``app.problems``, ``app.submissions``).
"""
