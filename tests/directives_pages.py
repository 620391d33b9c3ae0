"""Pages for the directive tests."""

from __future__ import annotations


def meta(*tags: tuple[str, str]) -> str:
    heads = "".join(f'<meta name="{name}" content="{content}">' for name, content in tags)
    return f"<html><head>{heads}</head><body><p>text</p></body></html>"
