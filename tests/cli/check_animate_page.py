#!/usr/bin/env python3
"""The teaching page's HTML (emulator/app/page/animate.html), checked on its own: every element
that is not void closes, in order; ids are unique; the markers EmbedPage.cmake replaces are there,
each once. A browser forgives a stray </div>; a page that only works because of that forgiveness
breaks when the next edit moves the tag. Usage: check_animate_page.py PAGE_DIR"""
import sys
from html.parser import HTMLParser
from pathlib import Path

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list = []
        self.ids: set = set()
        self.errors: list = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k == "id":
                if v in self.ids:
                    self.errors.append(f"line {self.getpos()[0]}: id {v!r} twice")
                self.ids.add(v)
        if tag not in VOID:
            self.open.append((tag, self.getpos()[0]))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.open.pop()

    def handle_endtag(self, tag):
        if not self.open:
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes nothing")
        elif self.open[-1][0] != tag:
            t, line = self.open[-1]
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes <{t}> of line {line}")
        else:
            self.open.pop()


def main() -> int:
    page = Path(sys.argv[1]) / "animate.html"
    text = page.read_text(encoding="utf-8")
    errors = []
    for marker in ("@animate.css@\n", "@animate.js@\n", "@data@"):
        if text.count(marker) != 1:
            errors.append(f"marker {marker.strip()!r} appears {text.count(marker)} times, not once")
    if not text.startswith("<!DOCTYPE html>"):
        errors.append("no <!DOCTYPE html> first")
    c = Checker()
    c.feed(text)
    c.close()
    errors += c.errors
    errors += [f"<{t}> of line {line} never closed" for t, line in c.open]
    for e in errors:
        print(f"{page}: {e}")
    if not errors:
        print(f"{page}: well-formed, {len(c.ids)} ids")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
