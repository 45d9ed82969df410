# rule: inputs-not-modified
# Right sums, but the caller's segment_ids (and values) are sorted in place first.
import torch


def segment_sum(values, segment_ids, num_segments):
    order = segment_ids.argsort()
    values.copy_(values[order])
    segment_ids.copy_(segment_ids[order])
    out = values.new_zeros((num_segments, values.shape[1]))
    return out.index_add_(0, segment_ids, values)
