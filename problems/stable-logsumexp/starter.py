import torch


def stable_logsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    """log(sum(exp(x), dim)) without overflow or underflow, like torch.logsumexp(x, dim).

    The reduced dimension is removed; the result has x's dtype. torch.logsumexp is not allowed,
    and x must not be modified.
    """
    # TODO: this overflows for large values and gives -inf for very negative ones
    return torch.log(torch.exp(x).sum(dim=dim))
