"""The lab: benchmarks and measuring tools, apart from what ships (``app/``, ``runner/``), which
never import them. ``make bench`` runs the benchmarks (``python -m bench.judge``, ``bench.web``,
``bench.scale``, ``bench.history``); the other modules measure one thing each
(docs/benchmarks.md, "Reproduce").
"""
