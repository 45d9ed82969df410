import torch


def gather_target_log_probs(
    log_probs: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100
) -> torch.Tensor:
    keep = targets != ignore_index
    # Ignored rows point at column 0 just so gather stays in range; their value is replaced below.
    safe_targets = torch.where(keep, targets, torch.zeros_like(targets))
    picked = log_probs.gather(1, safe_targets.unsqueeze(1)).squeeze(1)
    return picked.masked_fill(~keep, 0.0)
