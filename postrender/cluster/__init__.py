"""Everything that reads or changes a live cluster: `--retain` and `postrender gc`.

The render path imports this package only when `--retain` is given, and
nothing here imports the Kubernetes client at module level except
client.py, so `postrender render` without `--retain` never loads it.
"""
