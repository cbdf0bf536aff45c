"""Credentials never reach a screen, a log or an error message.

Database URLs (``postgresql://user:PASSWORD@host/db``) are how judges share an annotation store;
their passwords are masked wherever segview prints, logs or shows a URL or an error that may hold one.
This module is the one place that knows how: :func:`mask_secrets` for any text (messages, argparse
errors, log records), :func:`mask_url` for one database URL, :class:`MaskingFilter` for logging.
"""
from __future__ import annotations

import logging
import re

# scheme://user:password@host -> scheme://user:***@host   (any scheme, also inside longer text).
# A password may hold an unencoded "@" (``u:p@ss@host``): everything up to the LAST "@" of the
# token is masked (greedy, then back to the last "@"), so no tail of it is shown as the "host". A
# token ends at white space (a URL holds none); a password may hold quotes, so a quoted URL
# followed by more text with an "@" is masked past its end: too much, never too little. The user
# name may hold "@" too (``me@corp:pw@host``); it stops at the first ":".
_URL_PASSWORD = re.compile(
    r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:'\"]*:)(?P<pw>\S+)(?=@)")
# password=... in libpq key/value strings and query parameters
_KV_PASSWORD = re.compile(r"(?i)(?P<head>\bpassword\s*=\s*)(?P<pw>[^\s&;'\"]+)")


def mask_secrets(text: str) -> str:
    """``text`` with every password in a URL or ``password=`` pair replaced by ``***``."""
    text = _URL_PASSWORD.sub(r"\g<head>***", str(text))
    return _KV_PASSWORD.sub(r"\g<head>***", text)


def mask_url(url: str) -> str:
    """One database URL as it may be shown (its password, if any, as ``***``)."""
    return mask_secrets(url)


class MaskingFilter(logging.Filter):
    """A logging filter that masks passwords in every record it passes (message and arguments are
    merged first, so a URL given as an argument is masked too)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record: leave it to logging's own handling
            return True
        masked = mask_secrets(text)
        if masked != text or record.args:
            record.msg, record.args = masked, None
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            record.exc_text = mask_secrets(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = mask_secrets(record.exc_text)
        return True


def install_log_masking(logger: logging.Logger | None = None) -> None:
    """Mask secrets in everything the handlers of ``logger`` (default: the root logger) write."""
    logger = logger if logger is not None else logging.getLogger()
    for handler in logger.handlers:
        if not any(isinstance(f, MaskingFilter) for f in handler.filters):
            handler.addFilter(MaskingFilter())
