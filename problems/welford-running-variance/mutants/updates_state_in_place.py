# rule: new-tensors
import torch


def welford_update(state, batch):
    count_a, mean_a, m2_a = state["count"], state["mean"], state["m2"]
    count_b = batch.shape[0]
    if count_b > 0:
        mean_b = batch.mean(dim=0)
        m2_b = ((batch - mean_b) ** 2).sum(dim=0)
        count = count_a + count_b
        delta = mean_b - mean_a
        m2_a += m2_b + delta**2 * (count_a * count_b / count)  # writes into the caller's tensors
        mean_a += delta * (count_b / count)
        state["count"] = count
    count = state["count"]
    var = m2_a / (count - 1) if count > 1 else torch.full_like(m2_a, float("nan"))
    return {"count": count, "mean": mean_a, "m2": m2_a, "var": var}
