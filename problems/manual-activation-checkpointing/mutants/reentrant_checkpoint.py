from torch.utils.checkpoint import checkpoint


def _run(segment, h):
    for block in segment:
        h = block(h)
    return h


def checkpointed_forward(blocks, x, segment_size):
    # The old reentrant checkpoint: when x does not require grad, no parameter gets a gradient.
    h = x
    for start in range(0, len(blocks), segment_size):
        h = checkpoint(_run, blocks[start : start + segment_size], h, use_reentrant=True)
    return h
