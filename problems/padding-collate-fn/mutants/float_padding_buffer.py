import torch


def pad_collate(batch):
    sequences = [sequence for sequence, _ in batch]
    labels = torch.tensor([int(label) for _, label in batch], dtype=torch.int64)
    lengths = torch.tensor([sequence.shape[0] for sequence in sequences], dtype=torch.int64)
    max_len = int(lengths.max()) if len(sequences) else 0
    # a float32 buffer: token ids come back as floats
    padded = torch.zeros((len(sequences), max_len, *sequences[0].shape[1:]))
    mask = torch.zeros(len(sequences), max_len, dtype=torch.bool)
    for i, sequence in enumerate(sequences):
        padded[i, : sequence.shape[0]] = sequence
        mask[i, : sequence.shape[0]] = True
    return {"padded": padded, "lengths": lengths, "mask": mask, "labels": labels}
