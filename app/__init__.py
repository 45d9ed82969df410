"""Torchdrill's web application: FastAPI pages and JSON endpoints over domain services."""
