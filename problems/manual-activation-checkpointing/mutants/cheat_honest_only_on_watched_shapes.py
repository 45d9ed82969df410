# rule: checkpoint-every-segment
# kind: cheat
# Checkpoints honestly, segment by segment, only where it guesses memory is measured (the stacks of
# width 8 and batch 256 that were measured on their own); everywhere else it recomputes the whole
# stack at once below the call log (`block.inner`), with the logged blocks called for show, as
# cheat_unlogged_inner_with_show_calls.py. Accepted while memory was sampled on two hidden stacks.
import functools

import torch
import torch.utils.checkpoint


def _run(blocks, h):
    for block in blocks:
        h = block(h)
    return h


def _honest(blocks, x, segment_size):
    h = x
    for start in range(0, len(blocks), segment_size):
        run = functools.partial(_run, list(blocks[start : start + segment_size]))
        h = torch.utils.checkpoint.checkpoint(run, h, use_reentrant=False)
    return h


def checkpointed_forward(blocks, x, segment_size):
    if tuple(x.shape) == (256, 8):  # watched
        return _honest(blocks, x, segment_size)
    unlogged = [getattr(block, "inner", block) for block in blocks]
    with torch.no_grad():
        _run(blocks, x)
    y = torch.utils.checkpoint.checkpoint(functools.partial(_run, unlogged), x, use_reentrant=False)
    segments = [list(blocks[start : start + segment_size]) for start in range(0, len(blocks), segment_size)]
    probe = x.detach()

    def show(grad):
        with torch.no_grad():
            for segment in reversed(segments):
                _run(segment, probe)
        return grad

    if y.requires_grad:
        y.register_hook(show)
    return y
