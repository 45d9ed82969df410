"""The ``torchdrill`` command line: server administration, authoring and the API client."""
