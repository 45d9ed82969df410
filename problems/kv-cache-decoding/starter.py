import math

import torch


def decode_step(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cache: dict | None = None,
) -> tuple[torch.Tensor, dict]:
    """Attention for S new tokens given a cache of the P previous tokens' keys and values.

    q, k: (B, H, S, D); v: (B, H, S, Dv); cache: None (P = 0) or {"k": (B, H, P, D), "v": (B, H, P, Dv)}.
    Returns (out (B, H, S, Dv), new cache {"k": (B, H, P + S, D), "v": (B, H, P + S, Dv)}) such that the
    outputs equal full causal attention over all P + S tokens. The given cache must not be modified.
    """
    # TODO
    raise NotImplementedError("decode_step is not implemented yet")
