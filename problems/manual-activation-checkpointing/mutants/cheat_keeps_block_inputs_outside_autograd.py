# rule: activations-freed
# kind: cheat
# Keeps every block's input (one per block, not one per segment) as an attribute of a custom
# Function, where saved-tensor hooks never see it, and backpropagates block by block from them; the
# logged blocks run for show. Saved tensors: none. Only what the forward pass leaves alive, however
# it is kept, tells it apart.
import torch


class Stack(torch.autograd.Function):
    @staticmethod
    def forward(ctx, blocks, segments, x, *params):
        ctx.blocks = blocks
        ctx.segments = segments
        ctx.inputs = []
        h = x
        for block in blocks:
            ctx.inputs.append(h)
            h = getattr(block, "inner", block)(h)
        return h

    @staticmethod
    def backward(ctx, grad):
        with torch.no_grad():
            for segment in reversed(ctx.segments):
                for block in segment:
                    block(ctx.inputs[0])
        grads = []
        for block, h in zip(reversed(ctx.blocks), reversed(ctx.inputs)):
            inner = getattr(block, "inner", block)
            with torch.enable_grad():
                leaf = h.detach().requires_grad_(True)
                out = inner(leaf)
            ps = list(inner.parameters())
            g = torch.autograd.grad(out, [leaf, *ps], grad)
            grad = g[0]
            grads = list(g[1:]) + grads
        return (None, None, grad, *grads)


def checkpointed_forward(blocks, x, segment_size):
    with torch.no_grad():
        shown = x
        for block in blocks:
            shown = block(shown)
    params = [p for block in blocks for p in getattr(block, "inner", block).parameters()]
    segments = [list(blocks[s : s + segment_size]) for s in range(0, len(blocks), segment_size)]
    return Stack.apply(list(blocks), segments, x, *params)
