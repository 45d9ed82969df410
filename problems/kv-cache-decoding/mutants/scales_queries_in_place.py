# rule: inputs-not-modified
import math

import torch


def decode_step(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cache: dict | None = None,
) -> tuple[torch.Tensor, dict]:
    past = 0 if cache is None else cache["k"].shape[2]
    if cache is not None:
        # torch.cat makes new tensors: the caller's cache (and any earlier step) is untouched.
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    new, total = q.shape[2], k.shape[2]
    q = q.div_(math.sqrt(q.shape[-1]))  # scales the caller's queries in place
    scores = q @ k.transpose(-2, -1)
    # New query i is at absolute position past + i: it sees keys 0 .. past + i (bottom-right causal).
    visible = torch.ones(new, total, dtype=torch.bool, device=q.device).tril(diagonal=past)
    weights = torch.softmax(scores.masked_fill(~visible, float("-inf")), dim=-1)
    return weights @ v, {"k": k, "v": v}
