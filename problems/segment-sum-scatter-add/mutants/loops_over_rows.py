# rule: vectorised
def segment_sum(values, segment_ids, num_segments):
    # right sums, one row at a time
    out = values.new_zeros((num_segments, values.shape[1]))
    for row, segment in zip(values, segment_ids.tolist()):
        out[segment] += row
    return out
