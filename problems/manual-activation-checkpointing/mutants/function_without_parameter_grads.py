import functools

import torch


def _run_segment(segment, h):
    for block in segment:
        h = block(h)
    return h


class CheckpointSegment(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run, x):
        ctx.run = run
        ctx.save_for_backward(x)
        return run(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            x_leaf = x.detach().requires_grad_(True)
            out = ctx.run(x_leaf)
        # Only the input's gradient: the parameters are not inputs of the Function, so theirs is lost.
        (grad_x,) = torch.autograd.grad(out, x_leaf, grad_output)
        return None, grad_x


def checkpointed_forward(blocks, x, segment_size):
    h = x
    for start in range(0, len(blocks), segment_size):
        h = CheckpointSegment.apply(functools.partial(_run_segment, blocks[start : start + segment_size]), h)
    return h
