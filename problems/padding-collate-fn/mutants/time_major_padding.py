import torch
from torch.nn.utils.rnn import pad_sequence


def pad_collate(batch):
    sequences = [sequence for sequence, _ in batch]
    labels = torch.tensor([int(label) for _, label in batch], dtype=torch.int64)
    lengths = torch.tensor([sequence.shape[0] for sequence in sequences], dtype=torch.int64)
    padded = pad_sequence(sequences, padding_value=0)  # (L_max, B): batch_first forgotten
    mask = torch.arange(padded.shape[0]) < lengths.unsqueeze(1)
    return {"padded": padded, "lengths": lengths, "mask": mask, "labels": labels}
