# rule: no-builtin-adam
import torch


class MyAdamW(torch.optim.AdamW):
    """Inherits the whole algorithm from the built-in."""


def build_adamw(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    return MyAdamW(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
