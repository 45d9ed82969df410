# rule: inputs-not-modified
import torch


def segment_softmax(scores, segment_ids, num_segments):
    index = segment_ids.view(-1, *([1] * (scores.dim() - 1))).expand_as(scores)
    shape = (num_segments, *scores.shape[1:])
    seg_max = scores.new_full(shape, float("-inf")).scatter_reduce(0, index, scores, reduce="amax")
    # shifts and exponentiates the caller's scores in place to save two temporaries
    shifted = scores.sub_(seg_max.gather(0, index)).exp_()
    seg_sum = scores.new_zeros(shape).scatter_add(0, index, shifted)
    return shifted / seg_sum.gather(0, index)
