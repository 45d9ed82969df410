# rule: inputs-not-modified
import torch


def label_smoothed_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, smoothing: float, ignore_index: int = -100
) -> torch.Tensor:
    log_probs = torch.log_softmax(logits, dim=1)  # stable: never exp() a large logit
    keep = target != ignore_index
    target[~keep] = 0  # overwrites the caller's targets in place
    safe_target = target
    nll = -log_probs.gather(1, safe_target.unsqueeze(1)).squeeze(1)
    uniform = -log_probs.mean(dim=1)  # cross-entropy against the uniform distribution
    per_sample = (1.0 - smoothing) * nll + smoothing * uniform
    per_sample = torch.where(keep, per_sample, torch.zeros_like(per_sample))
    return per_sample.sum() / keep.sum()
