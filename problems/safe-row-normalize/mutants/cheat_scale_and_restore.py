# rule: input-not-modified
# kind: cheat
# Scales the caller's x by a power of two in place and back: bit for bit the same afterwards.
import torch


def safe_row_normalize(x, eps=1e-12):
    x.mul_(0.5)
    norms = torch.linalg.vector_norm(x, dim=-1, keepdim=True) * 2.0
    out = (x * 2.0) / norms.clamp_min(eps)
    x.mul_(2.0)
    return out
