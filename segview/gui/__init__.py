"""The desktop explorer (PySide6 + pyqtgraph). Imported only by ``segview gui``; never by the core."""
