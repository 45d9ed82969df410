import torch


def segment_softmax(scores: torch.Tensor, segment_ids: torch.Tensor, num_segments: int) -> torch.Tensor:
    """Softmax of scores within each segment (entries with the same segment id).

    scores: float (n,) or (n, H) (H heads, each normalised separately); segment_ids: int64 (n,),
    unsorted, in [0, num_segments). out[i] = exp(scores[i] - m) / sum_j exp(scores[j] - m) over
    the j in i's segment, m = that segment's maximum. Numerically stable for any finite scores.
    """
    # TODO: per-segment max (scatter_reduce "amax"), exponentials, per-segment sums, divide
    raise NotImplementedError("segment_softmax is not implemented yet")
