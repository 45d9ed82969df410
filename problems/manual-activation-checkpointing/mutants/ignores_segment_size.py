from torch.utils.checkpoint import checkpoint


def checkpointed_forward(blocks, x, segment_size):
    # Checkpoints each block on its own: stores every block's input instead of one per segment.
    h = x
    for block in blocks:
        h = checkpoint(block, h, use_reentrant=False)
    return h
