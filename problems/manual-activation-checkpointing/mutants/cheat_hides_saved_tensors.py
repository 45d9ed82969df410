# rule: activations-freed
# kind: cheat
# The cosmetic re-runs of cheat_cosmetic_reruns.py inside identity saved-tensor hooks: the
# innermost hooks win, so the judge's own hooks (which measure what autograd keeps) see nothing,
# while every activation is still kept. Refused by the source policy.
import torch


def checkpointed_forward(blocks, x, segment_size):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
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
