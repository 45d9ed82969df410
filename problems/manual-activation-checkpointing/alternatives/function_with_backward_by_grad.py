import torch


class Segment(torch.autograd.Function):
    """One segment: its input kept, its blocks re-run in backward and differentiated with
    torch.autograd.grad against the input and the segment's parameters."""

    @staticmethod
    def forward(ctx, blocks, h, *params):
        ctx.blocks = blocks
        ctx.n_params = len(params)
        ctx.save_for_backward(h)
        with torch.no_grad():
            for block in blocks:
                h = block(h)
        return h

    @staticmethod
    def backward(ctx, grad_out):
        (h,) = ctx.saved_tensors
        params = [p for block in ctx.blocks for p in block.parameters()]
        with torch.enable_grad():
            start = h.detach().requires_grad_(True)
            out = start
            for block in ctx.blocks:
                out = block(out)
        grads = torch.autograd.grad(out, [start, *params], grad_out, allow_unused=True)
        return (None, grads[0], *grads[1:])


def checkpointed_forward(blocks, x, segment_size):
    h = x
    for start in range(0, len(blocks), segment_size):
        segment = tuple(blocks[start : start + segment_size])
        params = [p for block in segment for p in block.parameters()]
        h = Segment.apply(segment, h, *params)
    return h
