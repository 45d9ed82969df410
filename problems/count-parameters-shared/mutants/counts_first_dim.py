import torch.nn as nn


def count_parameters(model: nn.Module) -> dict:
    seen = set()
    total = trainable = 0
    shared = []
    for name, param in model.named_parameters(remove_duplicate=False):
        if id(param) in seen:
            shared.append(name)
            continue
        seen.add(id(param))
        n = len(param)  # only the first dimension, not every element
        total += n
        if param.requires_grad:
            trainable += n
    return {
        "total": total,
        "trainable": trainable,
        "frozen": total - trainable,
        "tensors": len(seen),
        "shared": sorted(shared),
    }
