# rule: input-not-modified
import torch


def stable_logsumexp(x: torch.Tensor, dim: int) -> torch.Tensor:
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    x.sub_(m)  # saves a copy, but overwrites the caller's tensor
    return (m + torch.log(torch.exp(x).sum(dim=dim, keepdim=True))).squeeze(dim)
