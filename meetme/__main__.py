"""`python -m meetme`: the same command line as the `meetme` script."""

from meetme.cli import script

if __name__ == "__main__":
    script()
