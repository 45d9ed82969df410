"""Tests for count-parameters-shared.

Models are built here and handed to the learner's function: tied embeddings, a layer reused twice,
frozen parts, buffers (BatchNorm), no parameters at all. Counts do not depend on weight values.
"""

import torch.nn as nn

from runner.testing import case, requires_grad_writes, writes_during


class TinyLM(nn.Module):
    """An embedding tied to the output head, as in GPT-2 style language models."""

    def __init__(self, vocab: int = 10, dim: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, tokens):
        return self.head(self.norm(self.proj(self.embed(tokens))))


def example_model() -> nn.Module:
    model = TinyLM()
    model.norm.requires_grad_(False)
    return model


@case(public=True)
def example(solution):
    return solution.count_parameters(example_model())


@case
def bigger_tied_lm(solution):
    return solution.count_parameters(TinyLM(vocab=50, dim=16))


@case
def frozen_tied_embedding(solution):
    model = TinyLM(vocab=20, dim=8)
    model.embed.weight.requires_grad_(False)  # frozen through either name: it is one tensor
    return solution.count_parameters(model)


@case
def layer_reused_twice(solution):
    shared = nn.Linear(6, 6)
    model = nn.Sequential(shared, nn.ReLU(), shared, nn.ReLU(), nn.Linear(6, 2))
    return solution.count_parameters(model)


@case
def batchnorm_buffers_are_not_parameters(solution):
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 4, 1))
    model[0].requires_grad_(False)
    return solution.count_parameters(model)


@case
def no_parameters(solution):
    return solution.count_parameters(nn.Sequential(nn.ReLU(), nn.Tanh()))


@case(rule="model-not-modified")
def nested_sharing_and_model_unchanged(solution):
    block = nn.Sequential(nn.Linear(5, 3), nn.GELU())
    model = nn.ModuleDict({"a": block, "b": nn.Sequential(block, nn.Linear(3, 7)), "c": nn.LayerNorm(7)})
    model["c"].bias.requires_grad_(False)
    versions = {name: p._version for name, p in model.named_parameters()}  # writes move them
    # `.data` has a version counter of its own: the watch sees a write through any alias.
    # A flag cleared and set back reads as unchanged afterwards: every write of one is counted.
    with requires_grad_writes(model.parameters()) as flag_writes:
        result, written = writes_during(lambda: solution.count_parameters(model), *model.parameters())
    flags = {name: p.requires_grad for name, p in model.named_parameters()}
    writes = {name: p._version - versions[name] for name, p in model.named_parameters()}
    return {
        "result": result,
        "requires_grad_after": flags,
        "requires_grad_writes": flag_writes,
        "weight_writes": writes,
        "written_by_any_alias": written,
    }
