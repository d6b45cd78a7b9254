"""One Jinja environment for the HTML writer's blocks (``templates/*.html.jinja``).

Autoescaped, because every snapshot string is untrusted; undefined names are
errors, so a template and its caller cannot drift apart silently.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from ..sphinx_env.resources import templates_dir


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
    )


def render(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)
