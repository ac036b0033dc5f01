"""The one escaping layer between untrusted strings and the HTML page.

Every string that reaches the report page (card names and titles, player
names, predictor keys and variable names, table labels and cells, a
model's free text, an endpoint's messages) passes through `text` (element
content) or `attr` (a quoted attribute value) here, and nowhere else builds
markup from such a string. Both escape `& < > " '` and replace what HTML
cannot carry (lone surrogates, NUL and other C0/C1 controls but tab and
newline) with U+FFFD, so a string can neither open an element nor end an
attribute, nor make the page fail to encode.

`mathml_identifier` is the one way a name becomes MathML: an `<mi>` of the
escaped name (sympy's MathML printer writes symbol names into `<mi>`
without escaping them, see `formula.py`).

`content_security_policy` is the page's policy: nothing loads (no script,
font, frame, form target or base URL), and styles are allowed by hash
only: the page's own style sheet and the style attributes of the figures
matplotlib drew, each listed by its SHA-256, so a style that an untrusted
string might have introduced would not apply.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from html.parser import HTMLParser
from typing import Iterable

_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")


def clean(value) -> str:
    """The value as text HTML can carry (None is the empty string)."""
    s = "" if value is None else str(value)
    return _UNSAFE.sub("\ufffd", s)


def text(value) -> str:
    """Element content: escaped, so it is text whatever it holds."""
    return html.escape(clean(value), quote=True)


def attr(value) -> str:
    """A double-quoted attribute value (the quotes are the caller's)."""
    return html.escape(clean(value), quote=True)


_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def ident(value) -> str:
    """A fragment id from an untrusted name: letters, digits, `_ . -` only
    (anything else becomes `-`), so it is safe in `id` and `href="#..."`."""
    return _ID_UNSAFE.sub("-", clean(value))[:200] or "-"


def mathml_identifier(name: str) -> str:
    return f"<mi>{text(name)}</mi>"


def _sha256(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode() + "'"


class _Styles(HTMLParser):
    """Every `<style>` element's text and every `style` attribute's value."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.attributes: set[str] = set()
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self._in_style = tag == "style"
        if self._in_style:
            self.blocks.append("")
        for name, value in attrs:
            if name == "style" and value is not None:
                self.attributes.add(value)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self._in_style = False

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.blocks[-1] += data


def style_hashes(trusted: Iterable[str]) -> list[str]:
    """The CSP hash sources of the styles in trusted markup (the page's
    style sheet, matplotlib's SVG): never of markup built from untrusted text."""
    parser = _Styles()
    for fragment in trusted:
        parser.feed(fragment)
    parser.close()
    return sorted({_sha256(b) for b in parser.blocks} | {_sha256(a) for a in parser.attributes})


def content_security_policy(trusted_styles: Iterable[str]) -> str:
    """The page's policy (see the module doc). `'unsafe-hashes'` lets the
    listed hashes match style attributes too."""
    styles = " ".join(["'unsafe-hashes'", *style_hashes(trusted_styles)])
    return (f"default-src 'none'; style-src {styles}; img-src data:; base-uri 'none'; form-action 'none'; "
            "frame-src 'none'; object-src 'none'; script-src 'none'")
