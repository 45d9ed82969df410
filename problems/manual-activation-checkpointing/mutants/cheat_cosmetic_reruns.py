# rule: activations-freed
# kind: cheat
# A plain forward that keeps every activation, plus re-runs of each segment during backward (from a
# hook on each segment's output) so the call log looks checkpointed: same values, same gradients,
# the same calls by phase, and none of the memory saved.
import torch


def checkpointed_forward(blocks, x, segment_size):
    h = x
    for start in range(0, len(blocks), segment_size):
        segment = list(blocks[start : start + segment_size])
        seg_input = h.detach()
        for block in segment:
            h = block(h)
        if h.requires_grad:

            def rerun(grad, segment=segment, seg_input=seg_input):
                with torch.no_grad():
                    r = seg_input
                    for block in segment:
                        r = block(r)
                return grad

            h.register_hook(rerun)
    return h
