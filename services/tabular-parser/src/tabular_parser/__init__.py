"""tabular-parser: workbooks into recognised documents."""
