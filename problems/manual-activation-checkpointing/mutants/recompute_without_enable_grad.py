import functools

import torch


def _run_segment(segment, h):
    for block in segment:
        h = block(h)
    return h


class CheckpointSegment(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run, x, *params):
        ctx.run = run
        ctx.save_for_backward(x, *params)
        return run(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, *params = ctx.saved_tensors
        x_leaf = x.detach().requires_grad_(True)
        out = ctx.run(x_leaf)  # backward runs with grad disabled: nothing is recorded
        grads = torch.autograd.grad(out, (x_leaf, *params), grad_output, allow_unused=True)
        return (None, grads[0] if ctx.needs_input_grad[1] else None, *grads[1:])


def checkpointed_forward(blocks, x, segment_size):
    h = x
    for start in range(0, len(blocks), segment_size):
        segment = list(blocks[start : start + segment_size])
        params = [p for block in segment for p in block.parameters()]
        h = CheckpointSegment.apply(functools.partial(_run_segment, segment), h, *params)
    return h
