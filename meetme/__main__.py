"""`python -m meetme`: the same command line as the `meetme` script."""

from meetme.cli import main

if __name__ == "__main__":
    main()
