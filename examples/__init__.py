"""The demo programs that `make demo` runs."""
