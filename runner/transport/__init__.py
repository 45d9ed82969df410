"""How jobs reach the runner and results leave it: the wire (``wire.py``: queues, tasks, keys;
no side effects at import), the Celery worker (``celery_worker.py``) and the Unix-socket service
(``service.py``).
"""
