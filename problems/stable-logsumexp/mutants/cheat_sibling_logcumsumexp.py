# rule: no-builtin-logsumexp
# kind: cheat
# A sibling kernel: the last entry of the running log-sum-exp is the log-sum-exp.
import torch


def stable_logsumexp(x, dim):
    return torch.logcumsumexp(x, dim=dim).select(dim, -1)
