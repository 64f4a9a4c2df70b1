"""torch.utils.benchmark.utils: where torch.utils.benchmark's classes live, for programs that import them from here."""
