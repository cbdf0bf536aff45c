"""pyqtgraph items: the series plot, detector overlays, diagnostic tracks and the overview strip."""
