# rule: no-builtin-batch-norm
import torch.nn as nn


def build_batchnorm1d(num_features, eps=1e-5, momentum=0.1):
    # the built-in module itself, returned under another name
    return nn.BatchNorm1d(num_features, eps=eps, momentum=momentum)
