import functools

import torch
import torch.nn as nn


def _run_segment(segment: list[nn.Module], h: torch.Tensor) -> torch.Tensor:
    for block in segment:
        h = block(h)
    return h


class CheckpointSegment(torch.autograd.Function):
    """Run a segment without recording its graph; recompute it with the graph in backward."""

    @staticmethod
    def forward(ctx, run, x: torch.Tensor, *params: torch.Tensor) -> torch.Tensor:
        # A Function's forward runs in no-grad mode: none of the segment's activations are saved.
        ctx.run = run
        ctx.save_for_backward(x, *params)
        return run(x)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        x, *params = ctx.saved_tensors
        # Backward runs in no-grad mode too: turn recording back on to rebuild the segment's graph.
        with torch.enable_grad():
            x_leaf = x.detach().requires_grad_(True)
            out = ctx.run(x_leaf)
        grads = torch.autograd.grad(out, (x_leaf, *params), grad_output, allow_unused=True)
        grad_x = grads[0] if ctx.needs_input_grad[1] else None
        return (None, grad_x, *grads[1:])


def checkpointed_forward(blocks: list[nn.Module], x: torch.Tensor, segment_size: int) -> torch.Tensor:
    h = x
    for start in range(0, len(blocks), segment_size):
        segment = list(blocks[start : start + segment_size])
        params = [p for block in segment for p in block.parameters()]
        # partial binds this segment now (a closure over the loop variable would see the last one).
        h = CheckpointSegment.apply(functools.partial(_run_segment, segment), h, *params)
    return h
