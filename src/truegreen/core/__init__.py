"""Pure logic: no pytest, no I/O beyond what a function is handed."""
