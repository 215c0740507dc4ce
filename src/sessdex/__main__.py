"""`python -m sessdex` runs the command line."""

from .cli import main

main()
