import torch


def segment_softmax(scores, segment_ids, num_segments):
    # segment_ids used directly as the index: fine for (n,) scores, wrong shape for (n, H).
    seg_max = scores.new_full((num_segments,), float("-inf")).scatter_reduce(
        0, segment_ids, scores, reduce="amax"
    )
    e = (scores - seg_max[segment_ids]).exp()
    seg_sum = scores.new_zeros((num_segments,)).scatter_add(0, segment_ids, e)
    return e / seg_sum[segment_ids]
