"""The writers: how each builder family writes the page's nodes (``page.nodes``).

One module per family: ``html`` (the builders of format html: html, dirhtml,
singlehtml, epub; with ``html_templates``), ``text``, ``latex``, and ``lists`` (man and texinfo, whose
tables become bullet lists at resolve time); ``plain_words`` holds the rows in
plain words that the non-HTML writers share. Writers read node data and the
model (``page.model``), never the parts that built the nodes. Which builder
gets which visitor is one table in ``extension.py``.
"""
