"""`python -m meetme`: the same command line as the `meetme` script."""

from meetme.entry import script

if __name__ == "__main__":
    script()
