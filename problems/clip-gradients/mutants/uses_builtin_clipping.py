# rule: no-builtin-clipping
import torch
from torch.nn.utils import clip_grad_norm_, clip_grad_value_


def clip_grad_norm(parameters, max_norm: float) -> torch.Tensor:
    return clip_grad_norm_(parameters, max_norm)


def clip_grad_value(parameters, clip_value: float) -> None:
    clip_grad_value_(parameters, clip_value)
