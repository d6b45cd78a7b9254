"""What the extension keeps in and adds to Sphinx itself, for every part of the page:

* ``config``: the ``kexport_*`` configuration values and their validation;
* ``env_state``: what the build environment remembers per document (one purge,
  one merge: what makes the extension parallel-read safe);
* ``assets``: the stylesheet and script on the pages that need them;
* ``resources``: where the page's ``templates/`` and ``static/`` folders are (inside ``page/``).
"""
