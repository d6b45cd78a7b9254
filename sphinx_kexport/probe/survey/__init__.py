"""A survey: the settings, the plan (what to measure, what to reuse), the snapshot assembled, merged."""
