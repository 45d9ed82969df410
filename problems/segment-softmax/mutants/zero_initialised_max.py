import torch


def segment_softmax(scores, segment_ids, num_segments):
    index = segment_ids.view(-1, *([1] * (scores.dim() - 1))).expand_as(scores)
    shape = (num_segments, *scores.shape[1:])
    # include_self=True (the default) lets the zeros take part: max(0, scores) for negative segments.
    seg_max = scores.new_zeros(shape).scatter_reduce(0, index, scores, reduce="amax")
    e = (scores - seg_max.gather(0, index)).exp()
    seg_sum = scores.new_zeros(shape).scatter_add(0, index, e)
    return e / seg_sum.gather(0, index)
