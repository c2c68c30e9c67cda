"""`postrender graph`: the reference graph as a table, JSON, Graphviz or Mermaid.

It shows what a render would do: who references which ConfigMap or Secret
and where, the name each one ends with, and why an object keeps its name.
Only names are printed, never data. `view.py` builds the graph from a
render, `formats/` writes it (one file per format), `command.py` runs it.
"""
