# rule: input-not-modified
# kind: cheat
# Shifts the caller's x by its max in place and adds it back at the end. The max is subtracted and
# added exactly where the slice is finite, so x looks untouched to a comparison after the call.
import torch


def stable_logsumexp(x, dim):
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    x.sub_(m)
    out = m + torch.log(torch.exp(x).sum(dim=dim, keepdim=True))
    x.add_(m)
    return out.squeeze(dim)
