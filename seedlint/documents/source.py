"""Reading source files: bytes in, text out, with everything a fix must keep.

The encoding comes from the BOM or the PEP 263 coding cookie (as Python itself reads the file);
the newline style is the first one in the file. Columns from the stdlib ``ast`` are UTF-8 byte
offsets; :meth:`Source.char_col` turns them into character columns for reports.
"""

from __future__ import annotations

import codecs
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Optional

_NEWLINE = re.compile(r"\r\n|\r|\n")
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+", re.MULTILINE)


class DecodeError(Exception):
    """The bytes are not text in the file's declared (or default) encoding."""

    def __init__(self, message: str, offset: Optional[int] = None) -> None:
        super().__init__(message)
        self.offset = offset  # the byte offset of the first undecodable byte, when known


@dataclass
class Source:
    text: str
    encoding: str  # a codec name; "utf-8-sig" when the file starts with a BOM
    newline: str = "\n"
    _line_starts: Optional[list[int]] = field(default=None, repr=False)

    @classmethod
    def decode(cls, raw: bytes) -> Source:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        except SyntaxError as error:  # an unknown or inconsistent coding cookie
            if not _declares_encoding(raw):
                encoding = "utf-8"  # no cookie: the first lines are not UTF-8 (said below)
            elif "unknown encoding" in str(error) and _utf8(raw):
                # A codec a package registers when the program runs (`future_fstrings`,
                # `pyxl`): a source transformer over UTF-8 text, which is what is read.
                encoding = "utf-8"
            else:
                raise DecodeError(str(error)) from None
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as error:
            bad = raw[error.start : error.start + 1].hex()
            cookie = "" if _declares_encoding(raw) else " (the file has no coding cookie)"
            message = f"not valid {encoding}{cookie}: {error.reason} (byte 0x{bad})"
            raise DecodeError(message, error.start) from None
        except LookupError as error:
            raise DecodeError(f"cannot decode as {encoding}: {error}") from None
        if encoding == "utf-8-sig" and text.startswith("\ufeff"):
            text = text[1:]
        match = _NEWLINE.search(text)
        return cls(text, encoding, match.group() if match else "\n")

    def encode(self, text: str) -> bytes:
        """Encode new text the way the file was encoded (the BOM included)."""
        data = text.encode(self.encoding)
        if self.encoding == "utf-8-sig" and not data.startswith(codecs.BOM_UTF8):
            data = codecs.BOM_UTF8 + data
        return data

    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            starts.extend(m.end() for m in _NEWLINE.finditer(self.text))
            self._line_starts = starts
        return self._line_starts

    def line(self, row: int) -> str:
        """The text of a 1-based line, without its line ending."""
        starts = self.line_starts
        if row < 1 or row > len(starts):
            return ""
        end = starts[row] if row < len(starts) else len(self.text)
        return self.text[starts[row - 1] : end].rstrip("\r\n")

    def char_col(self, row: int, byte_col: int) -> int:
        """The character column of an ``ast`` UTF-8 byte offset on a 1-based line."""
        line = self.line(row)
        if line.isascii():
            return byte_col
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _declares_encoding(raw: bytes) -> bool:
    """Whether a BOM or a PEP 263 cookie in the first two lines names the encoding."""
    if raw.startswith(codecs.BOM_UTF8):
        return True
    head = b"\n".join(raw.splitlines()[:2])
    return _COOKIE.search(head) is not None
