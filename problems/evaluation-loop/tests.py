"""Tests for evaluation-loop.

A model with BatchNorm and Dropout is evaluated over loaders with a smaller last batch. Cases check
the averaged metrics, the mode and grad state seen by every forward call, that the BatchNorm
statistics are untouched, and that every submodule's mode is restored.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from runner.testing import case, writes_during


def make_model(seed):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 3))
    with torch.no_grad():  # give BatchNorm non-trivial running statistics
        model[1].running_mean.uniform_(-1.0, 1.0)
        model[1].running_var.uniform_(0.5, 2.0)
    return model


def make_loader(seed, n, batch_size):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=gen)
    y = torch.randint(0, 3, (n,), generator=gen)
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=False)


def modes(model):
    return [module.training for module in model.modules()]


def watch_forward(model):
    seen = []

    def record(module, inputs):
        seen.append({"grad_enabled": torch.is_grad_enabled(), "training": modes(module)})

    return seen, model.register_forward_pre_hook(record)


@case(public=True)
def example(solution):
    model = make_model(0)
    result = solution.evaluate(model, make_loader(1, 10, 4), nn.CrossEntropyLoss())
    return {"loss": round(result["loss"], 6), "accuracy": result["accuracy"]}


@case
def uneven_batches(solution):
    model = make_model(2)
    model.train()
    return solution.evaluate(model, make_loader(3, 23, 8), nn.CrossEntropyLoss())


@case
def batch_size_one_and_full_batch(solution):
    model = make_model(4)
    return [
        solution.evaluate(model, make_loader(5, 5, 1), nn.CrossEntropyLoss()),
        solution.evaluate(model, make_loader(5, 5, 5), nn.CrossEntropyLoss()),
    ]


@case
def another_loss_function(solution):
    model = make_model(6)
    return solution.evaluate(model, make_loader(7, 13, 4), nn.CrossEntropyLoss(label_smoothing=0.2))


@case(rule="eval-mode-no-grad")
def forward_runs_in_eval_without_grad(solution):
    model = make_model(8)
    model.train()
    seen, handle = watch_forward(model)
    # The hook sees calls of the model; autograd's pack hook sees every tensor a forward pass with
    # gradient tracking keeps for backward, whatever the route (submodules called one by one, the
    # functional API on the model's weights): a pass without tracking keeps none.
    saved = []

    def pack(tensor):
        saved.append(tuple(tensor.shape))
        return tensor

    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            solution.evaluate(model, make_loader(9, 9, 4), nn.CrossEntropyLoss())
    finally:
        handle.remove()
    return {"forward_calls": seen, "tensors_saved_for_backward": len(saved)}


@case(rule="modes-restored")
def train_mode_restored(solution):
    model = make_model(10)
    model.train()
    solution.evaluate(model, make_loader(11, 6, 4), nn.CrossEntropyLoss())
    return modes(model)


@case
def eval_mode_kept(solution):
    model = make_model(12)
    model.eval()
    solution.evaluate(model, make_loader(13, 6, 4), nn.CrossEntropyLoss())
    return modes(model)


@case(rule="modes-restored")
def mixed_modes_restored(solution):
    model = make_model(14)
    model.train()
    model[1].eval()  # a frozen BatchNorm inside a model that trains
    solution.evaluate(model, make_loader(15, 6, 4), nn.CrossEntropyLoss())
    return modes(model)


@case(rule="model-untouched")
def model_state_untouched(solution):
    model = make_model(16)
    model.train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    versions = {k: v._version for k, v in model.state_dict().items()}  # modify-and-restore moves them
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    loader = make_loader(17, 12, 5)
    result, written = writes_during(
        lambda: solution.evaluate(model, loader, nn.CrossEntropyLoss()), *model.state_dict().values()
    )
    after = model.state_dict()
    return {
        "result": result,
        "writes": {k: after[k]._version - versions[k] for k in before},
        "unchanged": {k: torch.equal(before[k], after[k]) for k in before},
        "grads": [p.grad is None for p in model.parameters()],
        "written_by_any_alias": written,
    }
