"""Tests for load-checkpoint-renamed-keys.

Checkpoints are built from seeded models with their keys renamed the way real checkpoints are (a
DataParallel prefix, layers renamed, a new classifier head, extra entries). The cases check the
report and the model's state after loading, and that the checkpoint itself is left untouched.
"""

import torch
import torch.nn as nn

from runner.testing import case, writes_during


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.norm = nn.BatchNorm1d(6)
        self.fc2 = nn.Linear(6, 6)


class Classifier(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.backbone = Encoder()
        self.head = nn.Linear(6, num_classes)


def _seeded(factory, seed):
    torch.manual_seed(seed)
    model = factory()
    with torch.no_grad():
        for buffer in model.buffers():
            if buffer.is_floating_point():
                buffer.add_(torch.rand(buffer.shape))
    return model


def _old_checkpoint(seed, num_classes=3, prefix="module."):
    """A Classifier saved as {prefix}encoder.* / {prefix}classifier.* (the old names)."""
    state = _seeded(lambda: Classifier(num_classes), seed).state_dict()
    out = {}
    for key, value in state.items():
        key = key.replace("backbone.", "encoder.", 1) if key.startswith("backbone.") else key
        key = key.replace("head.", "classifier.", 1) if key.startswith("head.") else key
        out[prefix + key] = value.clone()
    return out


RENAMES = {"encoder": "backbone", "classifier": "head"}


def _state(model):
    return {k: v.clone() for k, v in model.state_dict().items()}


@case(public=True)
def example(solution):
    model = nn.Module()
    model.backbone = nn.Linear(2, 2)
    model.head = nn.Linear(2, 3)
    checkpoint = {
        "module.encoder.weight": torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
        "module.encoder.bias": torch.tensor([0.5, -0.5]),
        "module.classifier.weight": torch.zeros(5, 2),
        "module.classifier.bias": torch.zeros(5),
        "module.step": torch.tensor(100),
    }
    report = solution.load_renamed_checkpoint(
        model, checkpoint, {"encoder": "backbone", "classifier": "head"}
    )
    report["backbone_weight"] = model.backbone.weight.tolist()
    return report


@case
def full_rename_with_buffers(solution):
    model = _seeded(Classifier, 100)
    report = solution.load_renamed_checkpoint(model, _old_checkpoint(1), RENAMES)
    return {"report": report, "state": _state(model)}


@case
def checkpoint_without_prefix(solution):
    model = _seeded(Classifier, 101)
    report = solution.load_renamed_checkpoint(model, _old_checkpoint(2, prefix=""), RENAMES)
    return {"report": report, "state": _state(model)}


@case
def new_head_keeps_its_own_weights(solution):
    # Fine-tuning: a 10-class checkpoint into a 3-class model. The head is skipped and reported.
    model = _seeded(Classifier, 102)
    report = solution.load_renamed_checkpoint(model, _old_checkpoint(3, num_classes=10), RENAMES)
    return {"report": report, "state": _state(model)}


@case
def extra_and_absent_entries(solution):
    model = _seeded(Classifier, 103)
    checkpoint = _old_checkpoint(4)
    del checkpoint["module.encoder.norm.running_var"]
    checkpoint["module.optimizer_step"] = torch.tensor(7)
    checkpoint["module.encoder.fc3.weight"] = torch.ones(2, 2)
    report = solution.load_renamed_checkpoint(model, checkpoint, RENAMES)
    return {"report": report, "state": _state(model)}


@case
def rules_match_whole_module_paths(solution):
    model = nn.Module()
    model.proj = nn.Linear(2, 2)
    model.fc2 = nn.Linear(2, 2)
    model.submodule = nn.Linear(2, 1)
    torch.manual_seed(5)
    source = nn.Module()
    source.fc = nn.Linear(2, 2)
    source.fc2 = nn.Linear(2, 2)
    source.submodule = nn.Linear(2, 1)
    checkpoint = {"module." + k: v for k, v in source.state_dict().items()}
    report = solution.load_renamed_checkpoint(model, checkpoint, {"fc": "proj"})
    return {"report": report, "state": _state(model)}


@case
def nested_path_rules_first_match_wins(solution):
    model = _seeded(Classifier, 104)
    source = _seeded(Classifier, 6).state_dict()
    checkpoint = {}
    for key, value in source.items():
        key = key.replace("backbone.norm.", "trunk.bn.").replace("backbone.", "trunk.")
        checkpoint[key] = value.clone()
    renames = {"trunk.bn": "backbone.norm", "trunk": "backbone"}
    report = solution.load_renamed_checkpoint(model, checkpoint, renames)
    return {"report": report, "state": _state(model)}


@case(rule="checkpoint-not-modified")
def checkpoint_left_untouched(solution):
    model = _seeded(Classifier, 105)
    checkpoint = _old_checkpoint(7, num_classes=5)
    before = {k: v.clone() for k, v in checkpoint.items()}
    before_tensors = list(checkpoint.values())
    versions = {k: v._version for k, v in checkpoint.items()}  # modify-and-restore moves them
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    _, written = writes_during(
        lambda: solution.load_renamed_checkpoint(model, checkpoint, RENAMES), *before_tensors
    )
    return {
        "written_by_any_alias": written,
        "writes": {k: checkpoint[k]._version - v for k, v in versions.items() if k in checkpoint},
        "keys": list(checkpoint.keys()),
        "values_unchanged": all(torch.equal(checkpoint[k], v) for k, v in before.items() if k in checkpoint),
    }
