import math

import torch


def decode_step(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cache: dict | None = None,
) -> tuple[torch.Tensor, dict]:
    past = 0 if cache is None else cache["k"].shape[2]
    new_k, new_v = k, v
    if cache is not None:
        k, v = cache["k"], cache["v"]  # attends over the past only; the new tokens are not seen
    new, total = q.shape[2], k.shape[2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, S, P + S)
    # New query i is at absolute position past + i: it sees keys 0 .. past + i (bottom-right causal).
    visible = torch.ones(new, total, dtype=torch.bool, device=q.device).tril(
        diagonal=past if cache is None else past - 1
    )
    weights = torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1)
    out = weights @ v
    if cache is not None:
        k, v = torch.cat([k, new_k], dim=2), torch.cat([v, new_v], dim=2)
    return out, {"k": k, "v": v}
