"""The cluster test's parts; `cluster-test/cluster.py` is its entry point."""
