import torch


class BinarizeSTE(torch.autograd.Function):
    """Forward: +1 where x >= 0, -1 elsewhere (same dtype as x).
    Backward: grad_output where |x| <= 1, 0 elsewhere (the clipped straight-through estimator)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        # TODO: save what backward needs, return the binarised tensor
        raise NotImplementedError("BinarizeSTE.forward is not implemented yet")

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor:
        # TODO: pass grad_output straight through inside [-1, 1], zero outside
        raise NotImplementedError("BinarizeSTE.backward is not implemented yet")


def binarize_ste(x: torch.Tensor) -> torch.Tensor:
    """Binarise x with BinarizeSTE (a torch.autograd.Function): return BinarizeSTE.apply(x)."""
    return BinarizeSTE.apply(x)
