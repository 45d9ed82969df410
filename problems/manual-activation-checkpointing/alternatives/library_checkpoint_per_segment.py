import functools

import torch.nn as nn
from torch.utils.checkpoint import checkpoint


def _run_segment(segment: list[nn.Module], h):
    for block in segment:
        h = block(h)
    return h


def checkpointed_forward(blocks, x, segment_size):
    # torch.utils.checkpoint on each segment, the last one included; the non-reentrant form gives the
    # parameters their gradients even when x does not require grad.
    h = x
    for start in range(0, len(blocks), segment_size):
        segment = list(blocks[start : start + segment_size])
        h = checkpoint(functools.partial(_run_segment, segment), h, use_reentrant=False)
    return h
