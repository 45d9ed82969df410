"""Scale-out: submissions judged by runner workers behind a broker instead of the web process's
own judge threads. ``celery_dispatch`` publishes jobs (after the request commits) and waits for
verdicts; ``recorder`` is the trusted process that stores the workers' results; ``finished``
announces a recorded verdict to the web processes; ``remote_runner`` is the runner workers as
the web sees them (heartbeats, queues, ad-hoc validation); ``judging_setup`` chooses, per web
process, between this and the embedded judge. See docs/deploy.md.
"""
