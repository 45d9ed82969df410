# rule: one-backward-pass
import torch


def vector_jacobian_product(f, x, v):
    # builds the Jacobian row by row with one backward pass per output element: right numbers,
    # but the work grows with the output's size
    x = x.detach().requires_grad_(True)
    y = f(x).reshape(-1)
    rows = [torch.autograd.grad(y[i], x, retain_graph=True)[0].reshape(-1) for i in range(y.numel())]
    jac = torch.stack(rows) if rows else x.new_zeros((0, x.numel()))
    return (v.reshape(1, -1) @ jac).reshape(x.shape)
