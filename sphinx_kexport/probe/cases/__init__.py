"""Cases: the ``case(...)`` API, loading case modules, fingerprints and container inputs."""
