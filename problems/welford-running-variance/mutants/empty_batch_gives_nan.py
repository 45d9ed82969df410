import torch


def welford_update(state, batch):
    count_a, mean_a, m2_a = state["count"], state["mean"], state["m2"]
    count_b = batch.shape[0]
    mean_b = batch.mean(dim=0)  # NaN for an empty batch
    m2_b = ((batch - mean_b) ** 2).sum(dim=0)
    count = count_a + count_b
    delta = mean_b - mean_a
    mean = mean_a + delta * (count_b / max(count, 1))
    m2 = m2_a + m2_b + delta**2 * (count_a * count_b / max(count, 1))
    var = m2 / (count - 1) if count > 1 else torch.full_like(m2, float("nan"))
    return {"count": count, "mean": mean, "m2": m2, "var": var}
