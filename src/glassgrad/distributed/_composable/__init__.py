"""torch.distributed._composable: only the names libraries import; glassgrad shards no module."""
