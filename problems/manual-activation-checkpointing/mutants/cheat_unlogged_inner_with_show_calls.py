# rule: checkpoint-every-segment
# kind: cheat
# One checkpoint around the whole stack, computed through each logged wrapper's unlogged block
# (`block.inner`), with the logged blocks called for show: in order during the forward pass, and
# segment by segment (last segment first) from a hook on the output during backward, under no_grad.
# The call log is the reference's and the memory kept is even lower; only the peak memory of
# backward, where the whole stack is recomputed at once, tells it apart.
import torch
import torch.utils.checkpoint


def checkpointed_forward(blocks, x, segment_size):
    unlogged = [getattr(block, "inner", block) for block in blocks]

    def run(h):
        for block in unlogged:
            h = block(h)
        return h

    with torch.no_grad():
        shown = x
        for block in blocks:
            shown = block(shown)
    y = torch.utils.checkpoint.checkpoint(run, x, use_reentrant=False)
    segments = [list(blocks[start : start + segment_size]) for start in range(0, len(blocks), segment_size)]
    probe = x.detach()

    def show(grad):
        with torch.no_grad():
            for segment in reversed(segments):
                for block in segment:
                    block(probe)
        return grad

    if y.requires_grad:
        y.register_hook(show)
    return y
