"""``python -m torchdrill``: the same as the ``torchdrill`` command."""

from torchdrill.cli import main

main()
