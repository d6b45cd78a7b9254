"""The page's parts: each module turns the page model (``page.model``) into the docutils
nodes of one component of the page (cards, legend, summary, package sections, failure
reasons, ...); ``assembly`` puts them together and ``directive`` runs it all.

A part builds nodes and plain node data only; how a node is written is the writers'
business (``page.writers``), which no part imports.
"""
