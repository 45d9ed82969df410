"""The sandbox: where untrusted code runs, and how (like DMOJ's ``cptbox``).

``host.py`` is the host's side (bubblewrap, the spares kept ready, the job's pipes and records);
``zygote.py`` the warm process inside that forks one spare per job; ``harness.py`` what a spare
runs; ``cgroups.py``, ``syscalls.py``, ``heap.py``, ``hugepages.py`` and ``_forkserver.c`` the
kernel and allocator work around them. It imports no judging: it returns raw records, and
``runner.judging`` turns them into a verdict. Nothing is re-exported here, so the zygote imports
only what it uses.
"""
