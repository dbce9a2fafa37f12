"""Documents: a file's bytes as the Python program the linter reads, and back.

``read_document(raw, display)`` gives a :class:`PythonDocument` (a source file: its encoding,
BOM and newlines kept) or a :class:`NotebookDocument` (a notebook's code cells as one program,
IPython syntax masked), or raises :class:`DocumentError`. Both have ``text`` (the program),
``locate`` (a finding's rows as the user counts them: a notebook's cell and row in the cell) and
``to_bytes`` (the file's bytes for a changed program). This layer never calls the linter.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Optional, Union

from seedlint.core import Finding, Problem
from seedlint.documents.errors import DocumentError
from seedlint.documents.notebook import Notebook, load, render_program, split
from seedlint.documents.source import DecodeError, Source

__all__ = [
    "DecodeError",
    "Document",
    "DocumentError",
    "NotebookDocument",
    "PythonDocument",
    "Source",
    "is_notebook",
    "position_of",
    "read_document",
]


def is_notebook(display: str) -> bool:
    return display.endswith(".ipynb")


@dataclass
class PythonDocument:
    display: str
    raw: bytes
    source: Source

    @property
    def text(self) -> str:
        return self.source.text

    @property
    def checkable(self) -> bool:
        return True

    def locate(self, finding: Finding, text: Optional[str] = None) -> Finding:
        return finding

    def to_bytes(self, new_text: str) -> Optional[bytes]:
        """The file's bytes for ``new_text`` (its encoding and BOM kept); UnicodeEncodeError
        when the encoding cannot hold the new text."""
        return self.source.encode(new_text)


@dataclass
class NotebookDocument:
    display: str
    raw: bytes
    notebook: Notebook
    program: str

    @property
    def text(self) -> str:
        return self.program

    @property
    def source(self) -> Source:
        return Source(self.program, "utf-8")

    @property
    def checkable(self) -> bool:
        """A notebook of another language, or without code cells, has nothing to check."""
        return self.notebook.python and bool(self.notebook.cells)

    def locate(self, finding: Finding, text: Optional[str] = None) -> Finding:
        """``finding`` (rows of the program ``text``, by default this one) with its cell set
        and its rows counted in that cell."""
        from seedlint.documents.notebook import to_cell

        program = self.program if text is None else text
        return to_cell(finding, split(program, self.notebook.tag).rows, self.notebook.margins)

    def to_bytes(self, new_text: str) -> Optional[bytes]:
        """The notebook with the changed cells written back, or None when it cannot be."""
        return render_program(self.notebook, self.program, new_text)

    def without(self, broken: Collection[int]) -> NotebookDocument:
        """This notebook with the cells ``broken`` (they do not parse) left out of its program:
        masked whole, so that their rows stay and no fix writes into them."""
        notebook = replace(self.notebook, masks=[])
        return NotebookDocument(self.display, self.raw, notebook, notebook.program(broken))


Document = Union[PythonDocument, NotebookDocument]


def read_document(raw: bytes, display: str) -> Document:
    """The document in ``raw``; DocumentError when it cannot be decoded or loaded."""
    if is_notebook(display):
        notebook = load(raw)  # DocumentError when it is not a notebook
        program = notebook.program() if notebook.python and notebook.cells else ""
        return NotebookDocument(display, raw, notebook, program)
    try:
        source = Source.decode(raw)
    except DecodeError as error:
        row, col = position_of(raw, error.offset or 0)
        raise DocumentError(Problem.READ, f"cannot decode: {error}", row, col) from None
    if "\0" in source.text:
        row, col = position_of(raw, raw.find(b"\0"))
        message = "cannot check: the file has a NUL byte (is it a binary file?)"
        raise DocumentError(Problem.READ, message, row, col)
    return PythonDocument(display, raw, source)


def position_of(raw: bytes, offset: int) -> tuple[int, int]:
    """The 1-based row and 0-based byte column of a byte offset (for undecodable files)."""
    offset = max(0, min(offset, len(raw)))
    row = raw.count(b"\n", 0, offset) + 1
    return row, offset - (raw.rfind(b"\n", 0, offset) + 1)
