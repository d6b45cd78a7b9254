"""The ``kexport_*`` configuration values and their validation.

Each value is checked when the configuration is read, before Sphinx's own
type check, so a wrong value gives one error that says what was expected and
what was found. The value then falls back to its default so the rest of the
build can report any other problem, and the build fails at the end
(see ``env_state.fail_build_on_errors``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

logger = logging.getLogger(__name__)


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:59] + '…'}"


def _check_package_order(value: Any) -> str | None:
    if not isinstance(value, (list, tuple)):
        return f"a list of package names, found {_describe(value)}"
    for i, item in enumerate(value):
        if not isinstance(item, str):
            return f"a list of package names, found {_describe(item)} at position {i}"
    return None


def _check_section_titles(value: Any) -> str | None:
    if not isinstance(value, dict):
        return ("a dict mapping a package name to a dict of section key -> title, "
                f"found {_describe(value)}")
    for package, titles in value.items():
        if not isinstance(package, str):
            return f"package names as keys, found the key {_describe(package)}"
        if not isinstance(titles, dict):
            return f"a dict of section key -> title for {package!r}, found {_describe(titles)}"
        for key, title in titles.items():
            if not isinstance(key, str) or not isinstance(title, str):
                return (f"section keys and titles as strings for {package!r}, "
                        f"found {_describe(key)} -> {_describe(title)}")
    return None


def _check_inventories(value: Any) -> str | None:
    if not isinstance(value, dict):
        return ("a dict mapping a name to the path of an objects.inv file, or to a "
                f"(base URL, path) pair, found {_describe(value)}")
    for name, target in value.items():
        if not isinstance(name, str):
            return f"names as keys, found the key {_describe(name)}"
        if isinstance(target, str) and target:
            continue
        if (isinstance(target, (list, tuple)) and len(target) == 2
                and all(isinstance(part, str) for part in target) and target[1]):
            continue
        return (f"a path, or a (base URL, path) pair of strings, for {name!r}, "
                f"found {_describe(target)}")
    return None


def _check_bool(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"True or False, found {_describe(value)}"


@dataclass(frozen=True)
class ConfigValue:
    name: str
    default: Any
    types: tuple[type, ...]
    check: Callable[[Any], str | None]
    help: str


CONFIG_VALUES = (
    ConfigValue("kexport_package_order", [], (list, tuple), _check_package_order,
                "Packages listed first, in this order; the others follow in snapshot order."),
    ConfigValue("kexport_section_titles", {}, (dict,), _check_section_titles,
                "Section headings: {package: {section key: title}}."),
    ConfigValue("kexport_inventories", {}, (dict,), _check_inventories,
                "Extra objects.inv files used to link operators: {name: path} (same site) or "
                "{name: (base URL, path)}."),
    ConfigValue("kexport_warn_unresolved", False, (bool,), _check_bool,
                "Warn once per page about operator references that link nowhere."),
    ConfigValue("kexport_api_badges", False, (bool,), _check_bool,
                "Add a strip of status badges to each API entry that appears in a snapshot."),
    ConfigValue("kexport_downloads", True, (bool,), _check_bool,
                "Publish each snapshot (JSON as committed, and CSV) next to the HTML page, with links."),
)

CONFIG_ERRORS_ATTR = "_kexport_config_errors"


def validate_config(app: Sphinx, config: Config) -> None:
    """Report every invalid kexport_* value, then fall back to its default."""
    errors = []
    for value in CONFIG_VALUES:
        problem = value.check(getattr(config, value.name))
        if problem:
            message = f"conf.py: {value.name} must be {problem}."
            logger.error(message)
            errors.append(message)
            setattr(config, value.name, value.default)
    setattr(app, CONFIG_ERRORS_ATTR, errors)


def register(app: Sphinx) -> None:
    for value in CONFIG_VALUES:
        app.add_config_value(value.name, value.default, "env", types=value.types)
    # Before Sphinx's own type check (priority 800), so only one message is shown.
    app.connect("config-inited", validate_config, priority=450)
