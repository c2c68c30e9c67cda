"""`postrender diff OLD NEW`: which workloads a change rolls, and why.

Each side is rendered as `postrender` would render it (raw or already
post-rendered input alike), and what matters is compared: the pod templates
the render writes, and the ConfigMaps and Secrets behind them, matched by
base name and content, never by versioned name.

side.py renders one side and keeps the facts; compare.py turns two sides into
a model.Report; formats/ writes a report (one module per format).
"""
