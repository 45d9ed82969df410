import torch


def gather_target_log_probs(
    log_probs: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100
) -> torch.Tensor:
    """out[i] = log_probs[i, targets[i]], or 0.0 where targets[i] == ignore_index.

    log_probs: (N, C) float; targets: (N,) int64. ignore_index may be outside 0..C-1
    (e.g. -100) and must never be used as an index. Use gather; do not modify the inputs.
    """
    # TODO: gather one column per row, with ignored rows made safe first
    raise NotImplementedError("gather_target_log_probs is not implemented yet")
