"""Tests for prenorm-causal-block.

Random weights in the stated layout for several widths and head counts, T = 1, float64, a check
that outputs at earlier positions do not change when later tokens change (causality), input
integrity, and no route to the built-in attention (forbid_ops).
"""

import torch

from runner.testing import case, check_call, forbid_ops

NO_CHANGE = "Do not modify `x` or the weights."
NO_BUILTIN = (
    "Do not use `F.scaled_dot_product_attention` or `nn.MultiheadAttention` (write the attention): a hidden "
    "test detects any call to them, whatever the route."
)

RTOL = 1e-4
ATOL = 1e-5

EXAMPLE_X = [[[-0.6, -0.2, -1.8, 0.8], [0.2, -0.1, -0.2, -0.6], [0.3, 0.6, -0.7, -1.2]]]
EXAMPLE_WEIGHTS = {
    "ln1_weight": [1.2, 1.0, 0.8, 1.1],
    "ln1_bias": [-0.5, -0.7, 0.2, 0.4],
    "qkv_weight": [
        [-0.7, -0.8, 0.3, 0.4],
        [0.3, -0.8, -0.2, 0.9],
        [0.4, -0.3, -0.1, 0.1],
        [0.7, 0.8, 0.5, -0.4],
        [-0.3, 0.0, -0.2, 0.1],
        [0.2, 0.1, 0.3, 0.2],
        [-0.1, 0.4, -0.1, 0.0],
        [0.3, 1.2, -0.7, -0.8],
        [-0.3, 0.4, 0.5, 0.1],
        [-0.1, -0.2, 0.3, -0.2],
        [-0.2, 0.4, 0.8, 1.7],
        [-0.8, -0.6, 0.9, -0.3],
    ],
    "qkv_bias": [0.1, 0.3, -1.1, 0.1, -0.5, -0.3, 0.1, -0.5, 0.0, 0.1, 0.0, -0.5],
    "out_weight": [
        [0.0, -0.3, 0.6, 0.2],
        [1.0, 0.4, 0.0, -0.2],
        [-0.8, -0.2, 0.5, 0.8],
        [-0.2, -0.7, 0.0, 0.2],
    ],
    "out_bias": [0.5, 1.4, 0.1, -0.5],
    "ln2_weight": [0.8, 0.9, 1.1, 1.0],
    "ln2_bias": [-0.1, -0.1, 0.9, 1.6],
    "fc1_weight": [
        [-0.4, -0.2, -0.4, 0.3],
        [0.3, 0.2, 1.0, -0.5],
        [0.0, 0.1, -0.3, -0.6],
        [-0.1, -0.5, -0.2, 0.1],
    ],
    "fc1_bias": [-0.7, 0.4, 0.4, 0.0],
    "fc2_weight": [
        [-0.4, -0.7, 0.8, 0.1],
        [-0.8, -0.2, -0.1, -0.2],
        [0.3, 0.5, 0.3, 0.0],
        [0.4, 0.0, 0.5, -0.4],
    ],
    "fc2_bias": [-0.5, 0.4, -0.4, -0.3],
}


def random_weights(seed, dim, hidden, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)

    def r(*shape, scale):
        return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)

    return {
        "ln1_weight": 1 + r(dim, scale=0.2),
        "ln1_bias": r(dim, scale=0.2),
        "qkv_weight": r(3 * dim, dim, scale=dim**-0.5),
        "qkv_bias": r(3 * dim, scale=0.1),
        "out_weight": r(dim, dim, scale=dim**-0.5),
        "out_bias": r(dim, scale=0.1),
        "ln2_weight": 1 + r(dim, scale=0.2),
        "ln2_bias": r(dim, scale=0.2),
        "fc1_weight": r(hidden, dim, scale=dim**-0.5),
        "fc1_bias": r(hidden, scale=0.1),
        "fc2_weight": r(dim, hidden, scale=hidden**-0.5),
        "fc2_bias": r(dim, scale=0.1),
    }


def random_x(seed, b, t, d, dtype=torch.float32):
    g = torch.Generator().manual_seed(1000 + seed)
    return (torch.randn(b, t, d, generator=g, dtype=torch.float64) * 1.5 + 0.3).to(dtype)


@case(public=True, rtol=RTOL, atol=ATOL)
def example(solution):
    weights = {k: torch.tensor(v) for k, v in EXAMPLE_WEIGHTS.items()}
    return solution.prenorm_block(torch.tensor(EXAMPLE_X), weights, 2)


@case(rtol=RTOL, atol=ATOL)
def two_heads(solution):
    return solution.prenorm_block(random_x(1, 2, 5, 8), random_weights(1, 8, 32), 2)


@case(rtol=RTOL, atol=ATOL)
def three_heads_odd_hidden(solution):
    return solution.prenorm_block(random_x(2, 3, 6, 12), random_weights(2, 12, 20), 3)


@case(rtol=RTOL, atol=ATOL)
def single_head(solution):
    return solution.prenorm_block(random_x(3, 1, 4, 6), random_weights(3, 6, 24), 1)


@case(rtol=RTOL, atol=ATOL)
def one_token_per_head_dim(solution):
    """T = 1 (attention to itself only) and head size 1."""
    return {
        "one_token": solution.prenorm_block(random_x(4, 2, 1, 8), random_weights(4, 8, 16), 4),
        "head_size_one": solution.prenorm_block(random_x(5, 1, 3, 4), random_weights(5, 4, 8), 4),
    }


@case(rtol=1e-9, atol=1e-9)
def float64(solution):
    d = torch.float64
    return solution.prenorm_block(random_x(6, 2, 5, 8, d), random_weights(6, 8, 16, d), 2)


@case(rtol=RTOL, atol=ATOL)
def future_tokens_do_not_matter(solution):
    weights = random_weights(7, 8, 16)
    x = random_x(7, 2, 7, 8)
    changed = x.clone()
    changed[:, 4:] = random_x(8, 2, 3, 8) * 5.0  # rewrite tokens 4, 5, 6
    out = solution.prenorm_block(x, weights, 2)
    out_changed = solution.prenorm_block(changed, weights, 2)
    return {
        "out": out,
        "prefix_unchanged": bool(torch.allclose(out[:, :4], out_changed[:, :4], rtol=1e-5, atol=1e-6)),
        "suffix_changed": bool(not torch.allclose(out[:, 4:], out_changed[:, 4:])),
    }


@case(rtol=RTOL, atol=ATOL)
def large_offsets_in_the_stream(solution):
    """A large common offset: LayerNorm must remove it (biased variance, eps inside the sqrt)."""
    return solution.prenorm_block(random_x(9, 2, 4, 8) + 50.0, random_weights(9, 8, 16), 2)


@case(rtol=RTOL, atol=ATOL, rule="inputs-not-modified")
def inputs_not_modified(solution):
    """x and every weight tensor (passed by name through a wrapper) are compared after the call."""
    weights = random_weights(10, 8, 16)
    names = list(weights)

    def block(x, *tensors):
        return solution.prenorm_block(x, dict(zip(names, tensors, strict=True)), 2)

    return check_call(
        block,
        random_x(10, 1, 4, 8),
        *weights.values(),
        names=["x", *names],
        constraint=NO_CHANGE,
        properties=("shape", "dtype"),
    )


@case(rtol=RTOL, atol=ATOL, rule="no-builtin-attention")
def no_builtin_attention(solution):
    """nn.MultiheadAttention goes through F.multi_head_attention_forward (or its fused aten kernel)."""
    names = (
        "torch.nn.functional.scaled_dot_product_attention",
        "torch.nn.functional.multi_head_attention_forward",
        "aten._scaled_dot_product_flash_attention_for_cpu",
        "aten._native_multi_head_attention",
    )
    with forbid_ops(dict.fromkeys(names, NO_BUILTIN)):
        return solution.prenorm_block(random_x(11, 1, 3, 8), random_weights(11, 8, 16), 2)


@case(rule="inputs-not-modified")
def inputs_never_written(solution):
    """Modify-and-restore leaves the values right but moves the tensors' version counters."""
    x = random_x(11, 1, 4, 8)
    weights = random_weights(11, 8, 16)
    watched = [x, *weights.values()]
    before = [t._version for t in watched]
    solution.prenorm_block(x, weights, 2)
    return {"writes": [t._version - b for t, b in zip(watched, before)]}
