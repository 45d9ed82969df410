# rule: inputs-not-modified
# kind: cheat
# Scales the caller's scores by a power of two in place and back: bit for bit the same afterwards.
import torch


def segment_softmax(scores, segment_ids, num_segments):
    scores.mul_(0.5)
    s = scores * 2.0
    scores.mul_(2.0)
    index = segment_ids.view(-1, *([1] * (s.dim() - 1))).expand_as(s)
    shape = (num_segments, *s.shape[1:])
    seg_max = s.new_full(shape, float("-inf")).scatter_reduce(0, index, s, reduce="amax")
    shifted = (s - seg_max.gather(0, index)).exp()
    seg_sum = s.new_zeros(shape).scatter_add(0, index, shifted)
    return shifted / seg_sum.gather(0, index)
