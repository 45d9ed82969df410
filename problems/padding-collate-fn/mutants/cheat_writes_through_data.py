# rule: inputs-not-modified
# kind: cheat
# Writes every sequence of the batch through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch
from torch.nn.utils.rnn import pad_sequence


def pad_collate(batch):
    for sequence, _ in batch:
        sequence.data.neg_()
        sequence.data.neg_()
    sequences = [sequence for sequence, _ in batch]
    labels = torch.tensor([int(label) for _, label in batch], dtype=torch.int64)
    lengths = torch.tensor([sequence.shape[0] for sequence in sequences], dtype=torch.int64)
    padded = pad_sequence(sequences, batch_first=True, padding_value=0)
    # position j of row i is real when j < length_i: one broadcast comparison builds the whole mask
    mask = torch.arange(padded.shape[1]) < lengths.unsqueeze(1)
    return {"padded": padded, "lengths": lengths, "mask": mask, "labels": labels}
