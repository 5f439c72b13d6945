// No fusion at all: compiles to an empty bundle that loads.
