"""A small YAML reader for the deploy/ manifests, used when PyYAML is not installed.

The project does not depend on PyYAML, so ``load_all`` uses it when it happens to be importable
and otherwise parses the subset of YAML that deploy/ is written in: block mappings and
sequences, plain / single- / double-quoted scalars with YAML 1.1 typing (as PyYAML resolves
them: ``0440`` is octal, ``yes``/``on`` are booleans), literal and folded block scalars with
chomping indicators, flow sequences and mappings of scalars, comments and ``---`` document
separators. Anything outside that subset (anchors, tags, multi-line plain scalars, complex keys)
raises ``YamlError`` rather than being misread. ``test_miniyaml_agrees_with_pyyaml`` checks it
gives the same result as PyYAML on every file under deploy/ wherever PyYAML is available.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["YamlError", "load_all", "parse_all"]


class YamlError(ValueError):
    """The text is not in the supported subset (or not YAML)."""


_BOOL = {
    **dict.fromkeys(("true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"), True),
    **dict.fromkeys(("false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"), False),
}
_NULL = {"", "~", "null", "Null", "NULL"}
_INT_DEC = re.compile(r"^[-+]?(0|[1-9][0-9_]*)$")
_INT_OCT = re.compile(r"^[-+]?0[0-7_]+$")
_INT_HEX = re.compile(r"^[-+]?0x[0-9a-fA-F_]+$")
_FLOAT = re.compile(
    r"^[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?$|^[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?$"
)
_UNSUPPORTED_START = ("&", "*", "!", "%", "@", "`", "?")


def _resolve_plain(s: str) -> Any:
    if s in _NULL:
        return None
    if s in _BOOL:
        return _BOOL[s]
    if _INT_DEC.match(s):
        return int(s.replace("_", ""))
    if _INT_OCT.match(s):
        sign = -1 if s.startswith("-") else 1
        return sign * int(s.lstrip("+-").replace("_", ""), 8)
    if _INT_HEX.match(s):
        sign = -1 if s.startswith("-") else 1
        return sign * int(s.lstrip("+-")[2:].replace("_", ""), 16)
    if _FLOAT.match(s):
        return float(s.replace("_", ""))
    if s in (".inf", ".Inf", ".INF", "+.inf"):
        return float("inf")
    if s in ("-.inf", "-.Inf", "-.INF"):
        return float("-inf")
    if s.startswith(_UNSUPPORTED_START):
        raise YamlError(f"unsupported YAML construct: {s!r}")
    return s


def _double_quoted(s: str) -> str:
    try:
        return json.loads(s)
    except json.JSONDecodeError as exc:
        raise YamlError(f"bad double-quoted scalar {s!r}: {exc}") from exc


def _strip_comment(s: str) -> str:
    quote = ""
    for i, ch in enumerate(s):
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "\"'" and (i == 0 or s[i - 1] in " \t[{,:"):
            quote = ch
        elif ch == "#" and (i == 0 or s[i - 1] in " \t"):
            return s[:i].rstrip()
    return s.rstrip()


def _scalar(s: str) -> Any:
    s = s.strip()
    if s.startswith('"'):
        if not s.endswith('"') or len(s) < 2:
            raise YamlError(f"unterminated double-quoted scalar {s!r}")
        return _double_quoted(s)
    if s.startswith("'"):
        if not s.endswith("'") or len(s) < 2:
            raise YamlError(f"unterminated single-quoted scalar {s!r}")
        return s[1:-1].replace("''", "'")
    if s.startswith(("[", "{")):
        value, rest = _flow(s, 0)
        if s[rest:].strip():
            raise YamlError(f"trailing text after flow collection: {s!r}")
        return value
    return _resolve_plain(s)


def _flow(s: str, i: int) -> tuple[Any, int]:
    """Parses a flow collection or scalar at ``s[i]``; returns (value, index after it)."""
    while i < len(s) and s[i] == " ":
        i += 1
    if s[i] in "[{":
        closing = "]" if s[i] == "[" else "}"
        is_map = s[i] == "{"
        out: Any = {} if is_map else []
        i += 1
        while True:
            while i < len(s) and s[i] in " ,":
                i += 1
            if i >= len(s):
                raise YamlError(f"unterminated flow collection: {s!r}")
            if s[i] == closing:
                return out, i + 1
            if is_map:
                key, i = _flow_scalar(s, i, ":")
                if i >= len(s) or s[i] != ":":
                    raise YamlError(f"flow mapping needs 'key: value': {s!r}")
                value, i = _flow(s, i + 1)
                out[key] = value
            else:
                value, i = _flow(s, i)
                out.append(value)
    return _flow_scalar(s, i, ",]}")


def _flow_scalar(s: str, i: int, stops: str) -> tuple[Any, int]:
    while i < len(s) and s[i] == " ":
        i += 1
    if i < len(s) and s[i] in "\"'":
        q = s[i]
        j = i + 1
        while j < len(s):
            if s[j] == "\\" and q == '"':
                j += 2
                continue
            if s[j] == q:
                if q == "'" and j + 1 < len(s) and s[j + 1] == "'":
                    j += 2
                    continue
                break
            j += 1
        return _scalar(s[i : j + 1]), j + 1
    j = i
    while j < len(s) and s[j] not in stops:
        if s[j] in "[{":
            return _flow(s, j)
        j += 1
    return _resolve_plain(s[i:j].strip()), j


def _split_key(content: str) -> tuple[str, str] | None:
    """``key: rest`` → (key, rest); None if the line is not a mapping entry."""
    if content.startswith(("'", '"')):
        q = content[0]
        end = content.find(q, 1)
        if end < 0 or not content[end + 1 :].startswith(":"):
            return None
        rest = content[end + 2 :]
        if rest and not rest.startswith(" "):
            return None
        return _scalar(content[: end + 1]), rest.strip()
    if content.startswith(("[", "{")):
        return None
    m = re.match(r"^([^\s#'\"][^#]*?)\s*:(?:\s+(.*))?$", content)
    if not m or ": " in m.group(1) or m.group(1).endswith(":"):
        return None
    return m.group(1), (m.group(2) or "").strip()


class _Parser:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.i = 0

    def _peek(self) -> tuple[int, str] | None:
        while self.i < len(self.lines):
            raw = self.lines[self.i]
            if "\t" in raw[: len(raw) - len(raw.lstrip())]:
                raise YamlError(f"line {self.i + 1}: tab in indentation")
            content = _strip_comment(raw.strip())
            if content:
                return len(raw) - len(raw.lstrip(" ")), content
            self.i += 1
        return None

    @staticmethod
    def _is_item(content: str) -> bool:
        return content == "-" or content.startswith("- ")

    def node(self, indent: int) -> Any:
        head = self._peek()
        if head is None or head[0] < indent:
            return None
        ind, content = head
        if self._is_item(content):
            return self.seq(ind)
        if _split_key(content) is not None:
            return self.mapping(ind)
        self.i += 1
        return _scalar(content)

    def seq(self, ind: int) -> list[Any]:
        items: list[Any] = []
        while True:
            head = self._peek()
            if head is None or head[0] != ind or not self._is_item(head[1]):
                if head is not None and head[0] > ind:
                    raise YamlError(f"line {self.i + 1}: bad indentation")
                return items
            raw = self.lines[self.i]
            rest = raw[ind + 1 :]
            stripped = rest.lstrip(" ")
            if not _strip_comment(stripped):
                self.i += 1
                nxt = self._peek()
                items.append(self.node(nxt[0]) if nxt is not None and nxt[0] > ind else None)
                continue
            content = _strip_comment(stripped)
            if content.startswith(("|", ">")):
                self.i += 1
                items.append(self.block_scalar(content, ind))
                continue
            offset = ind + 1 + (len(rest) - len(stripped))
            self.lines[self.i] = " " * offset + stripped
            items.append(self.node(offset))

    def mapping(self, ind: int) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        while True:
            head = self._peek()
            if head is None or head[0] != ind or self._is_item(head[1]):
                if head is not None and head[0] > ind:
                    raise YamlError(f"line {self.i + 1}: bad indentation")
                return out
            split = _split_key(head[1])
            if split is None:
                raise YamlError(f"line {self.i + 1}: expected 'key: value', got {head[1]!r}")
            key, rest = split
            if key in out:
                raise YamlError(f"line {self.i + 1}: duplicate key {key!r}")
            self.i += 1
            if rest.startswith(("|", ">")):
                out[key] = self.block_scalar(rest, ind)
            elif rest:
                out[key] = _scalar(rest)
            else:
                nxt = self._peek()
                if nxt is not None and (nxt[0] > ind or (nxt[0] == ind and self._is_item(nxt[1]))):
                    out[key] = self.node(nxt[0])
                else:
                    out[key] = None

    def block_scalar(self, header: str, parent: int) -> str:
        m = re.match(r"^([|>])([+-]?)$", header)
        if not m:
            raise YamlError(f"line {self.i}: unsupported block scalar header {header!r}")
        style, chomp = m.groups()
        body: list[str] = []
        block_indent = None
        while self.i < len(self.lines):
            raw = self.lines[self.i]
            if raw.strip():
                ind = len(raw) - len(raw.lstrip(" "))
                if ind <= parent:
                    break
                if block_indent is None:
                    block_indent = ind
                if ind < block_indent:
                    break
                body.append(raw[block_indent:])
            else:
                body.append("")
            self.i += 1
        while body and body[-1] == "" and chomp != "+":
            body.pop()
        trailing = 0
        if chomp == "+":
            while body and body[-1] == "":
                body.pop()
                trailing += 1
        if style == "|":
            text = "\n".join(body)
        else:
            text = ""
            prev = "start"
            for line in body:
                if line == "":
                    text += "\n"
                    prev = "blank"
                    continue
                kind = "more" if line.startswith(" ") else "normal"
                if prev in ("start", "blank"):
                    sep = ""
                elif prev == "normal" and kind == "normal":
                    sep = " "
                else:
                    sep = "\n"
                text += sep + line
                prev = kind
        if not body:
            return ""
        if chomp == "-":
            return text
        return text + "\n" * (1 + trailing)


def parse_all(text: str) -> list[Any]:
    """Every document of ``text`` (the subset described in the module doc)."""
    docs: list[list[str]] = [[]]
    for line in text.split("\n"):
        if line.rstrip() == "---" or line.startswith("--- "):
            docs.append([])
            if line.startswith("--- ") and _strip_comment(line[4:].strip()):
                raise YamlError("content on a '---' line is not supported")
        elif line.rstrip() in ("...",):
            continue
        else:
            docs[-1].append(line)
    out: list[Any] = []
    for i, lines in enumerate(docs):
        p = _Parser(lines)
        head = p._peek()
        if head is None:
            if i > 0:  # "---" at the start yields no empty first document; later empty ones are null
                out.append(None)
            continue
        value = p.node(head[0])
        if p._peek() is not None:
            raise YamlError(f"line {p.i + 1}: unexpected content {p.lines[p.i].strip()!r}")
        out.append(value)
    return out


def load_all(text: str) -> list[Any]:
    """Every document of ``text``: with PyYAML when installed, else with ``parse_all``."""
    try:
        import yaml
    except ImportError:
        return parse_all(text)
    return list(yaml.safe_load_all(text))
