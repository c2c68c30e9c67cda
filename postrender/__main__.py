# The first line: entry holds the signals before anything else of postrender loads.
from .entry import run

run()
