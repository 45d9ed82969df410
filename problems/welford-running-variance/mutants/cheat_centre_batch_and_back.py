# rule: new-tensors
# kind: cheat
# Centres the caller's batch in place on the old mean (to save a temporary) and adds it back.
import torch


def welford_update(state, batch):
    count_a, mean_a, m2_a = state["count"], state["mean"], state["m2"]
    count_b = batch.shape[0]
    if count_b == 0:
        mean, m2, count = mean_a.clone(), m2_a.clone(), count_a
    else:
        batch.sub_(mean_a)
        mean_b = batch.mean(dim=0) + mean_a
        m2_b = ((batch + mean_a - mean_b) ** 2).sum(dim=0)
        batch.add_(mean_a)
        count = count_a + count_b
        delta = mean_b - mean_a
        mean = mean_a + delta * (count_b / count)
        m2 = m2_a + m2_b + delta**2 * (count_a * count_b / count)
    var = torch.full_like(m2, float("nan")) if count < 2 else m2 / (count - 1)
    return {"count": count, "mean": mean, "m2": m2, "var": var}
