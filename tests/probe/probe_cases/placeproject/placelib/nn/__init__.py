from .blur import blur

__all__ = ["blur"]
