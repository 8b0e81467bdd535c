"""Coverage reports of explorations: what the generated tests execute, per source file.

`build(view, explorations, paths)` replays every exploration's tests and returns a
`Coverage`; `write_lcov`, `write_cobertura` and `write_html` write it (each atomically).
"""

from ingot.coverage.cobertura import cobertura_xml, write_cobertura
from ingot.coverage.html import html_pages, write_html
from ingot.coverage.lcov import lcov_text, write_lcov
from ingot.coverage.model import (
           BranchCoverage,
           Coverage,
           Explored,
           FileCoverage,
           FindingMark,
           FunctionCoverage,
           build,
)

__all__ = ["BranchCoverage", "Coverage", "Explored", "FileCoverage", "FindingMark", "FunctionCoverage", "build",
           "cobertura_xml", "html_pages", "lcov_text", "write_cobertura", "write_html", "write_lcov"]
