# rule: new-tensors
import torch


def welford_update(state: dict, batch: torch.Tensor) -> dict:
    count_a, mean_a, m2_a = state["count"], state["mean"], state["m2"]
    count_b = batch.shape[0]
    if count_b == 0:
        mean, m2, count = mean_a, m2_a, count_a  # nothing to add: hands back the caller's own tensors
    else:
        # Summarise the batch with a two-pass (deviation-based) M2, then merge the two summaries
        # (Chan et al.): only differences of means are squared, never the raw values.
        mean_b = batch.mean(dim=0)
        m2_b = ((batch - mean_b) ** 2).sum(dim=0)
        count = count_a + count_b
        delta = mean_b - mean_a
        mean = mean_a + delta * (count_b / count)
        m2 = m2_a + m2_b + delta**2 * (count_a * count_b / count)
    if count < 2:
        var = torch.full_like(m2, float("nan"))
    else:
        var = m2 / (count - 1)
    return {"count": count, "mean": mean, "m2": m2, "var": var}
