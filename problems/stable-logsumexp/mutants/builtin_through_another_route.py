# rule: no-builtin-logsumexp
import torch


def stable_logsumexp(x, dim):
    # the built-in under another name: the C binding is not torch.logsumexp's attribute
    return torch._C._VariableFunctions.logsumexp(x, [dim])
