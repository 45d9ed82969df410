import torch


def segment_softmax(scores: torch.Tensor, segment_ids: torch.Tensor, num_segments: int) -> torch.Tensor:
    # One index entry per score: (n,) -> (n, 1, ...) -> scores' shape (a view, no copy).
    index = segment_ids.view(-1, *([1] * (scores.dim() - 1))).expand_as(scores)
    shape = (num_segments, *scores.shape[1:])
    # Per-segment maximum, starting from -inf so the buffer never wins; empty segments stay -inf
    # but are never gathered.
    seg_max = scores.new_full(shape, float("-inf")).scatter_reduce(0, index, scores, reduce="amax")
    shifted = (scores - seg_max.gather(0, index)).exp()  # every value in (0, 1], the max gives 1
    seg_sum = scores.new_zeros(shape).scatter_add(0, index, shifted)  # >= 1 for every used segment
    return shifted / seg_sum.gather(0, index)
