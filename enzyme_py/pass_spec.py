"""The text of a pipeline: `name`, `name{key=value,...}`, separated by commas.

    sroa,instcombine,reverse{fn=f,acts=dup,out,ret=active},O2

Inside braces the arguments are `key=value` and bare words (`acts=dup,out,primal`); which
argument a bare word belongs to is the pass's business (`passes.bind_arguments`: it continues a
list, `acts=dup,out`, or is a flag, `primal`). A value holding one of `,{}="` or a space is
written in double quotes, with `\\"` and `\\\\` inside (`fn="a,b"`); `quote` does that.

Invariants: `format_item` writes what `parse_pipeline` reads back unchanged; a malformed text
raises `PipelineError` naming the column of the problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzyme_py.errors import EnzymePyError

_SPECIAL = set(',{}="\\') | {" ", "\t", "\n"}


class PipelineError(EnzymePyError):
    """A pipeline text that does not parse, an unknown pass, or a bad argument of one."""


@dataclass(frozen=True)
class Argument:
    """`key=value`, or a bare word (`key` None)."""

    key: str | None
    value: str


@dataclass
class Item:
    """One pass of a pipeline text: its name and its arguments in order."""

    name: str
    arguments: list[Argument] = field(default_factory=list)


def quote(word: str) -> str:
    """`word` as a value in a pipeline text (quoted only when it must be)."""
    if word and not _SPECIAL & set(word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_item(name: str, arguments: list[tuple[str, list[str]]]) -> str:
    """`name{key=v1,v2,...}` (just `name` without arguments)."""
    if not arguments:
        return name
    parts = [f"{key}=" + ",".join(quote(w) for w in words) for key, words in arguments]
    return f"{name}{{{','.join(parts)}}}"


def parse_pipeline(text: str) -> list[Item]:
    """The items of a pipeline text, in order (empty items between commas are skipped)."""
    return _Parser(text).items()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def error(self, message: str) -> PipelineError:
        return PipelineError(f"pipeline {self.text!r}, column {self.at + 1}: {message}")

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def skip_space(self) -> None:
        while self.peek().isspace():
            self.at += 1

    def items(self) -> list[Item]:
        out: list[Item] = []
        while True:
            self.skip_space()
            if self.peek() == "":
                return out
            if self.peek() == ",":
                self.at += 1
                continue
            name = self.bare_word()
            if not name:
                raise self.error(f"expected a pass name, found {self.peek()!r}")
            item = Item(name)
            self.skip_space()
            if self.peek() == "{":
                self.at += 1
                item.arguments = self.arguments()
            out.append(item)
            self.skip_space()
            if self.peek() not in ("", ","):
                raise self.error(f"expected ',' after pass {name!r}, found {self.peek()!r}")

    def arguments(self) -> list[Argument]:
        args: list[Argument] = []
        while True:
            self.skip_space()
            c = self.peek()
            if c == "":
                raise self.error("missing '}'")
            if c == "}":
                self.at += 1
                return args
            if c == ",":
                self.at += 1
                continue
            word = self.value()
            self.skip_space()
            if self.peek() == "=":
                self.at += 1
                self.skip_space()
                value = self.value() if self.peek() not in (",", "}") else ""
                args.append(Argument(word, value))
            else:
                args.append(Argument(None, word))

    def value(self) -> str:
        if self.peek() == '"':
            return self.quoted()
        word = self.bare_word()
        if not word:
            raise self.error(f"expected a value, found {self.peek()!r}")
        return word

    def bare_word(self) -> str:
        start = self.at
        while self.peek() and self.peek() not in _SPECIAL:
            self.at += 1
        return self.text[start:self.at]

    def quoted(self) -> str:
        self.at += 1
        out: list[str] = []
        while True:
            c = self.peek()
            if c == "":
                raise self.error("unterminated quoted value")
            self.at += 1
            if c == '"':
                return "".join(out)
            if c == "\\":
                out.append(self.peek())
                self.at += 1
            else:
                out.append(c)
