"""``.. probe-cli:: [SUBCOMMAND]``: one command of the probe's CLI, drawn from its real argparse parser.

The parsers come from ``sphinx_kexport.probe.cli.main.parsers()`` (building them imports no torch). Each
command shows its usage, its description, then every argument and option as a ``.. option::`` of the
``.. program::`` the command is, with the parser's own help text: a flag added to the code appears here at
the next build, with a target that ``:option:`` links to and the ``std:cmdoption`` entry in objects.inv.
The help text is shown as plain text, never interpreted as reStructuredText. The refresh (no SUBCOMMAND)
also lists the commands, each with its one-line summary and a link to its section, labelled
``probe-COMMAND``: a command added to the parser without a section fails the ``-W`` build.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

WIDTH = 100  # the usage's line width, whatever terminal builds the docs


def plain(text: str) -> nodes.paragraph:
    """A paragraph of the parser's own words, as ``--help`` prints them (no smart quotes: ``--fresh`` stays)."""
    paragraph = nodes.paragraph(text, text)
    paragraph["support_smartquotes"] = False
    return paragraph


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    from sphinx_kexport.probe.cli.main import parsers

    return parsers()


def signature(action: argparse.Action) -> str:
    """How the option is written: ``--jobs N``, ``--device {cpu,cuda}``, ``--fresh``, or a positional's name."""
    if not action.option_strings:
        return action.metavar or action.dest.upper()
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    if action.metavar:
        value = action.metavar
    elif action.choices:
        value = "{" + ",".join(map(str, action.choices)) + "}"
    else:
        value = action.dest.upper()
    return ", ".join(f"{flag} {value}" for flag in action.option_strings)


def documented(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.help is not argparse.SUPPRESS
            and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def command_list(parser: argparse.ArgumentParser, docname: str) -> list[nodes.Node]:
    """The parser's subcommands as ``--help`` lists them: each name, linked to its section, and its summary."""
    listed = nodes.bullet_list()
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for choice in action._choices_actions:
            link = addnodes.pending_xref("", refdomain="std", reftype="ref", reftarget=f"probe-{choice.dest}",
                                         refexplicit=True, refwarn=True, refdoc=docname)
            link += nodes.literal(choice.dest, choice.dest)
            item = plain("")
            item += [link, nodes.Text(f": {choice.help}")]
            listed += nodes.list_item("", item)
    return [plain("The commands (each with its own --help):"), listed] if len(listed) else []


def usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


class ProbeCli(SphinxDirective):
    optional_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        import sphinx_kexport.probe.cli as cli

        name = self.arguments[0].strip() if self.arguments else ""
        parsers = command_parsers()
        if name not in parsers:
            raise self.error(f"probe-cli: no command {name!r}; the commands are: "
                             f"{', '.join(repr(n) for n in parsers)}")
        for module in sorted(Path(cli.__file__).parent.glob("*.py")):
            self.env.note_dependency(str(module))
        parser = parsers[name]
        text = usage(parser)
        block = nodes.literal_block(text, text, classes=["kx-cli-usage"])
        block["language"] = "text"  # a usage line, not Python
        out: list[nodes.Node] = [block]
        if parser.description:
            out.append(plain(parser.description))
        actions = documented(parser)
        lines = [f".. program:: {parser.prog}", ""]
        for index, action in enumerate(actions):
            lines += [f".. option:: {signature(action)}", "", f"   KX-CLI-HELP-{index}", ""]
        holder = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source=f"<probe-cli {name or 'refresh'}>"), holder)
        for paragraph in list(holder.findall(nodes.paragraph)):
            marker = paragraph.astext()
            if marker.startswith("KX-CLI-HELP-"):
                action = actions[int(marker.rsplit("-", 1)[1])]
                help_text = action.help % dict(vars(action), prog=parser.prog) if action.help else ""
                if action.choices and action.option_strings and action.metavar:
                    help_text += f" (one of {', '.join(map(str, action.choices))})"
                if help_text:
                    paragraph.replace_self(plain(help_text))
                else:
                    paragraph.parent.remove(paragraph)
        out += holder.children
        out += command_list(parser, self.env.docname)
        if parser.epilog:
            out.append(plain(parser.epilog))
        return out


def setup(app):
    app.add_directive("probe-cli", ProbeCli)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
