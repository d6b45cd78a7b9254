"""Running cases in worker processes: the pool, the worker, its settings, the work directory, progress."""
