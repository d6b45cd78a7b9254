"""Every "measure again?" key in one place: whether a result, a docstring example's cases or a test file's cases
are reused or made again.

* :mod:`.keys`: each key as a record (what it covers, what changes it, what happens then, which module holds it)
  and the reasons a rerun gives as records (an id and fields) with their words. Standard library only, importing
  nothing of the probe: the documentation's table of keys is drawn from it at docs-build time.
* :mod:`.own_code`: a digest of the probe's own code (a module and every module of the package it imports), what
  the discovery cache and the measurement records key on instead of a hand-bumped format number.
* :mod:`.decide`: a record's fingerprint, the comparable environment, and the verdict for a case on a device:
  reused, or measured again with a :class:`~.keys.Reason`.

Nothing is imported here, so that importing :mod:`.keys` stays cheap.
"""
