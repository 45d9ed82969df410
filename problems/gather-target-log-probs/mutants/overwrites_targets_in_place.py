# rule: inputs-not-modified
import torch


def gather_target_log_probs(log_probs, targets, ignore_index=-100):
    keep = targets != ignore_index
    targets[~keep] = 0  # edits the caller's targets: the -100 markers are gone after the call
    return log_probs.gather(1, targets.unsqueeze(1)).squeeze(1).masked_fill(~keep, 0.0)
