import torch


def stable_logsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    m = x.amax(dim=dim, keepdim=True)
    # An all -inf slice (or one holding +inf) has a non-finite max and x - m would be NaN there:
    # shift by 0 instead, and the plain formula gives -inf (or +inf), as torch.logsumexp does.
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    out = m + torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))
    return out.squeeze(dim)
