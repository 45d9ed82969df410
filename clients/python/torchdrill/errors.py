"""The client's one error: a message for the learner and the exit code the CLI ends with."""

from __future__ import annotations

EXIT_NOT_ACCEPTED = 1
EXIT_ERROR = 2


class ClientError(Exception):
    """Something the learner must hear about (the CLI prints it and exits; a notebook shows it)."""

    def __init__(self, message: str, code: int = EXIT_ERROR, error: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.error = error  # the API's error code (``invalid_input``, ...), when the server answered one
