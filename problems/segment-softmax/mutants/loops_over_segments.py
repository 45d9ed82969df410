# rule: vectorised
import torch


def segment_softmax(scores, segment_ids, num_segments):
    # right weights, one segment at a time
    out = torch.zeros_like(scores)
    for segment in range(num_segments):
        selected = segment_ids == segment
        if selected.any():
            out[selected] = torch.softmax(scores[selected], dim=0)
    return out
