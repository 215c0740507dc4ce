"""`python -m sessdex` runs the command line."""

from .launch import main

main()
