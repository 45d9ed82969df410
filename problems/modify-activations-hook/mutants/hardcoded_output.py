def modify_hook_test() -> dict:
    # Copies the statement's example instead of computing anything.
    return {
        "output_without": [-0.2042, -0.7735],
        "output_with": [-0.218, -0.3107],
        "outputs_differ": True,
    }
