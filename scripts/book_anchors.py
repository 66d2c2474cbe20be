#!/usr/bin/env python3
"""Fails on a link of the built book whose #fragment names no element of its target page.

mdbook-linkcheck2 checks that every linked page and file exists, but not the heading a
fragment names; this reads the HTML mdBook wrote (so the ids are mdBook's own) and checks
each relative link's fragment. Usage: book_anchors.py target/book/html
"""

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

SKIPPED = {"print.html", "toc.html", "404.html"}


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[int, str]] = []
        self.in_main = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])
        if tag == "main":
            self.in_main = True
        if tag == "a" and self.in_main and values.get("href"):
            self.links.append((self.getpos()[0], values["href"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "main":
            self.in_main = False


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def main() -> int:
    root = Path(sys.argv[1])
    pages = {p: parse(p) for p in sorted(root.rglob("*.html")) if p.name not in SKIPPED}
    broken = []
    for path, page in pages.items():
        for line, href in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not parts.fragment:
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path.resolve()
            target_page = pages.get(target) or next(
                (p for t, p in pages.items() if t.resolve() == target), None
            )
            if target_page is None:
                continue  # a missing page is linkcheck2's to report
            if unquote(parts.fragment) not in target_page.ids:
                broken.append(f"{path.relative_to(root)}:{line}: {href}: no heading #{parts.fragment} there")
    for problem in broken:
        print(f"error: {problem}", file=sys.stderr)
    if broken:
        print(f"error: {len(broken)} link(s) to a missing heading", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
