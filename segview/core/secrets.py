"""Credentials never reach a screen, a log or an error message.

Database URLs (``postgresql://user:PASSWORD@host/db``) are how judges share an annotation store;
their passwords are masked wherever segview prints, logs or shows a URL or an error that may hold one.
"""
from __future__ import annotations

import re

# scheme://user:password@  -> scheme://user:***@   (any scheme, also inside longer text)
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*:)(?P<pw>[^@\s/]+)(?=@)")
# password=... in libpq key/value strings and query parameters
_KV_PASSWORD = re.compile(r"(?i)(?P<head>\bpassword\s*=\s*)(?P<pw>[^\s&;']+)")


def mask_secrets(text: str) -> str:
    """``text`` with every password in a URL or ``password=`` pair replaced by ``***``."""
    text = _URL_PASSWORD.sub(r"\g<head>***", text)
    return _KV_PASSWORD.sub(r"\g<head>***", text)
