import torch
import torch.nn as nn


class TiedLanguageModel(nn.Module):
    """tokens (B, T) -> embedding (V, D) -> tanh(proj) -> lm_head -> logits (B, T, V).

    lm_head is an nn.Linear(D, V, bias=False) whose weight is the embedding's weight: one Parameter.
    """

    def __init__(self, vocab_size: int, dim: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim)
        self.proj = nn.Linear(dim, dim)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        # TODO: tie lm_head's weight to the embedding's weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.proj(self.embedding(tokens)))
        return self.lm_head(h)


def build_tied_lm(vocab_size: int, dim: int) -> nn.Module:
    return TiedLanguageModel(vocab_size, dim)
