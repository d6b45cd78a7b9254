"""The page model: what an export-support page shows, computed once from a snapshot.

Plain Python over the snapshot's records, no docutils and no Sphinx: the parts
(``page.parts``) turn it into doctree nodes and the writers (``page.writers``) render
those, so no builder can disagree with another about a number.

* ``page_model``: the page model (packages, tables, rows, cells, counts) and its builder;
* ``words``: the words a status is said with (a cell's text, its CSS class, the legend's
  meaning), from the vocabulary's records;
* ``payloads``: the plain, picklable data the doctree nodes carry (columns, rows);
* ``dynamic_batch``: whether a supported cell holds at any batch size (its mark and reason);
* ``reason_groups``: the reason index (distinct failure reasons, grouped and counted);
* ``comparison``: what changed since an older snapshot (``:compare:``);
* ``badge_summary``: what an API entry's badge strip says (``kexport_api_badges``);
* ``versions``, ``version_marks``, ``version_history``: one page across torch versions (which torch
  each snapshot is and their order; "since torch X" / "regressed in torch Y"; cases matched by name).
"""
