# rule: inputs-not-modified
# kind: cheat
# The classic in-place "fix" of targets, undone before returning: same values afterwards.
import torch


def gather_target_log_probs(log_probs, targets, ignore_index=-100):
    keep = targets != ignore_index
    targets.masked_fill_(~keep, 0)
    picked = log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
    targets.masked_fill_(~keep, ignore_index)
    return picked.masked_fill(~keep, 0.0)
