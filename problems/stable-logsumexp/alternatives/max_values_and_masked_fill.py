import torch


def stable_logsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    # The maximum through torch.max (values and indices), infinities guarded with masked_fill.
    m = torch.max(x, dim=dim, keepdim=True).values
    m = m.masked_fill(~torch.isfinite(m), 0.0)
    return (m + (x - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)
