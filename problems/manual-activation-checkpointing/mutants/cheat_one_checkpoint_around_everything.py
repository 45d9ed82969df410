# rule: checkpoint-every-segment
# kind: cheat
# One checkpoint around the whole stack: every block still runs once forward and once in backward,
# and the memory is even lower, but the segments are not checkpointed one by one.
import torch
import torch.utils.checkpoint


def checkpointed_forward(blocks, x, segment_size):
    def run(h):
        for block in blocks:
            h = block(h)
        return h

    return torch.utils.checkpoint.checkpoint(run, x, use_reentrant=False)
