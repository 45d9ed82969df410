import torch


def gather_target_log_probs(log_probs, targets, ignore_index=-100):
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    picked = log_probs.gather(1, safe.unsqueeze(1))  # (N, 1), not (N,)
    return picked.masked_fill(~keep.unsqueeze(1), 0.0)
