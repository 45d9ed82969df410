# rule: model-not-modified
# kind: cheat
# Marks each counted parameter by negating it in place, and negates it back at the end: bit for bit
# the same weights afterwards.
import torch
import torch.nn as nn


def count_parameters(model: nn.Module) -> dict:
    seen: set[int] = set()
    total = trainable = 0
    shared: list[str] = []
    # remove_duplicate=False yields every name a parameter is reachable under, so tied weights
    # show up twice; identity (not equal values) decides whether we have counted a tensor already.
    for name, param in model.named_parameters(remove_duplicate=False):
        if id(param) in seen:
            shared.append(name)
            continue
        seen.add(id(param))
        total += param.numel()
        if param.requires_grad:
            trainable += param.numel()
    with torch.no_grad():
        for _, param in model.named_parameters():
            param.neg_()
        for _, param in model.named_parameters():
            param.neg_()
    return {
        "total": total,
        "trainable": trainable,
        "frozen": total - trainable,
        "tensors": len(seen),
        "shared": sorted(shared),
    }
